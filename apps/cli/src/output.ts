import {
  type DeviceListInfo,
  formatSafetyNumber,
  type IdentityInfo,
  type KeysStatus,
  type KtVerification,
  type ReceivedMessage,
  type SafetyNumberReport,
  type SendResult,
  type SessionInfo,
  type TrustResult,
} from "@svc/client";

/** One result as a command prints it: a JSON object (--json) or text for people. */
export interface Report {
  json: Record<string, unknown>;
  text: string;
}

/** A failure or a warning: a stable code and a sentence, and members for --json. */
export interface Problem {
  code: string;
  message: string;
  /** More members of the --json object (IDENTITY_CHANGED: both fingerprints). */
  details?: Record<string, unknown>;
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

export function sentReport(to: string, sent: SendResult): Report {
  if (sent.deliveries === undefined) {
    return { json: { to, msgId: sent.msgId }, text: `sent to ${to} (msgId ${sent.msgId})` };
  }
  const devices = sent.deliveries.filter((delivery) => !delivery.copy).length;
  const copies = sent.deliveries.length - devices;
  return {
    json: { to, msgId: sent.msgId, deliveries: sent.deliveries },
    text: `sent to ${to}: ${devices} device${devices === 1 ? "" : "s"}, ${copies} cop${copies === 1 ? "y" : "ies"} to your other devices (msgId ${sent.msgId})`,
  };
}

/**
 * A received message; bytes that are not UTF-8 show as U+FFFD. `to` is printed by a device of an
 * account with a device list (`devices`), where messages come to the account and copies of what
 * its other devices sent come too; a device without one prints what it always printed.
 */
export function messageReport(message: ReceivedMessage, devices: boolean): Report {
  const text = utf8.decode(message.plaintext);
  if (!devices && !message.sent) {
    return {
      json: { from: message.from, text, msgId: message.msgId },
      text: `${message.from}: ${text}`,
    };
  }
  return {
    json: {
      from: message.from,
      to: message.to,
      text,
      msgId: message.msgId,
      ...(message.sent ? { sent: true } : {}),
    },
    text: message.sent
      ? `${message.from} (sent to ${message.to}): ${text}`
      : `${message.from}: ${text}`,
  };
}

/** An account's device list. */
export function devicesReport(list: DeviceListInfo): Report {
  return {
    json: { account: list.account, version: list.version, devices: list.devices },
    text: [
      `${list.account}: device list version ${list.version}`,
      ...list.devices.map((device) => `  ${device.address}  ${device.identitySigningKey}`),
    ].join("\n"),
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
      `one-time ML-KEM prekeys on the server: ${status.kemPreKeysOnServer}`,
      `one-time ML-KEM prekeys held here: ${status.kemPreKeysLocal}`,
    ].join("\n"),
  };
}

export function sessionReport(session: SessionInfo): Report {
  return {
    json: { address: session.address, postQuantum: session.postQuantum },
    text: session.postQuantum
      ? `${session.address}: post-quantum session (PQXDH: X25519 and ML-KEM-1024)`
      : `${session.address}: classic session (X3DH: X25519 only)`,
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

export function safetyNumberReport(report: SafetyNumberReport): Report {
  const lines = [
    `safety number of ${report.address} and you:`,
    formatSafetyNumber(report.safetyNumber),
    `fingerprint of ${report.address}: ${report.fingerprint}`,
    `your fingerprint: ${report.ownFingerprint}`,
  ];
  if (report.changed) {
    lines.push(
      `${report.address} now has other keys, not trusted yet (svc trust ${report.address} accepts them); with them the number would be:`,
      formatSafetyNumber(report.changed.safetyNumber),
      `their fingerprint: ${report.changed.fingerprint}`,
    );
  }
  return { json: { ...report }, text: lines.join("\n") };
}

export function trustReport(result: TrustResult): Report {
  const text = !result.changed
    ? `${result.address}: nothing to accept, the directory has the keys trusted here (fingerprint ${result.fingerprint})`
    : result.previousFingerprint === null
      ? `${result.address}: trusted keys with fingerprint ${result.fingerprint}`
      : `${result.address}: trusted the new keys: fingerprint ${result.fingerprint} (was ${result.previousFingerprint}); the next message starts a new session`;
  return { json: { ...result }, text };
}

export function pushSubscribedReport(endpoint: string): Report {
  return { json: { ok: true, endpoint }, text: `subscribed ${endpoint}` };
}

export function pushUnsubscribedReport(removed: boolean): Report {
  return { json: { ok: true, removed }, text: removed ? "unsubscribed" : "no such subscription" };
}

export function pushVapidReport(publicKey: string): Report {
  return { json: { publicKey }, text: publicKey };
}

/** A problem on stderr: `{"error"|"warning": code, "message"}` with --json, else one sentence. */
export function problemLine(
  kind: "error" | "warning",
  problem: Problem,
  json: boolean,
  tool = "svc",
): string {
  return json
    ? JSON.stringify({ [kind]: problem.code, message: problem.message, ...problem.details })
    : `${tool}: ${kind}: ${problem.message}`;
}
