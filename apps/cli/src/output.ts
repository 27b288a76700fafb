import type { IdentityInfo, KeysStatus, KtVerification, ReceivedMessage } from "@svc/client";

/** One result as a command prints it: a JSON object (--json) or text for people. */
export interface Report {
  json: Record<string, unknown>;
  text: string;
}

/** A failure or a warning: a stable code and a sentence. */
export interface Problem {
  code: string;
  message: string;
}

const utf8 = new TextDecoder();

export function identityReport(identity: IdentityInfo, heading?: string): Report {
  const lines = [
    `address: ${identity.address}`,
    `identity signing key (Ed25519): ${identity.identitySigningKey}`,
    `identity DH key (X25519): ${identity.identityDHKey}`,
  ];
  return {
    json: { ...identity },
    text: (heading === undefined ? lines : [heading, ...lines]).join("\n"),
  };
}

export function sentReport(to: string, msgId: string): Report {
  return { json: { to, msgId }, text: `sent to ${to} (msgId ${msgId})` };
}

/** A received message; bytes that are not UTF-8 show as U+FFFD. */
export function messageReport(message: ReceivedMessage): Report {
  const text = utf8.decode(message.plaintext);
  return {
    json: { from: message.from, text, msgId: message.msgId },
    text: `${message.from}: ${text}`,
  };
}

export function keysReport(status: KeysStatus): Report {
  return {
    json: { ...status },
    text: [
      `address: ${status.address}`,
      `one-time prekeys on the server: ${status.oneTimePreKeysOnServer}`,
      `one-time prekeys held here: ${status.oneTimePreKeysLocal}`,
      `signed prekey id: ${status.signedPreKeyId}`,
    ].join("\n"),
  };
}

export function ktReport(address: string, verified: KtVerification): Report {
  return {
    json: { address, ...verified },
    text: [
      `${address}: key transparency verified: leaf ${verified.leafIndex} of a tree of size ${verified.treeSize}`,
      `identity signing key (Ed25519): ${verified.identitySigningKey}`,
      `identity DH key (X25519): ${verified.identityDHKey}`,
    ].join("\n"),
  };
}

/** A problem on stderr: `{"error"|"warning": code, "message"}` with --json, else one sentence. */
export function problemLine(
  kind: "error" | "warning",
  problem: Problem,
  json: boolean,
  tool = "svc",
): string {
  return json
    ? JSON.stringify({ [kind]: problem.code, message: problem.message })
    : `${tool}: ${kind}: ${problem.message}`;
}
