/** What a failure means to a person, in a sentence, with the code it came from (for support). */
export interface Problem {
  code: string;
  sentence: string;
}

/**
 * A failure of the client (ClientError), the server (SvcError) or the code's format
 * (DeviceMessageError), as a sentence; `peer` is who the action was about, when there is one.
 * Nothing of a stack or of a raw message reaches the page.
 */
export function plainProblem(error: unknown, peer?: string): Problem {
  const code = codeOf(error);
  const who = peer === undefined ? "this person" : peer;
  return { code, sentence: SENTENCES[code]?.(who) ?? `Something went wrong (${code}). Try again.` };
}

const NETWORK = () =>
  "The server can't be reached right now. Check your connection; you can retry once it is back.";
const UNKNOWN = (who: string) =>
  `There is no one called ${who} on this server. Check the address (like bob, or bob:1).`;

const SENTENCES: Record<string, (who: string) => string> = {
  NETWORK,
  TIMEOUT: NETWORK,
  SVC_UNAVAILABLE: NETWORK,
  KT_VERIFICATION_FAILED: (who) =>
    `The server's key transparency log does not back the keys it gave for ${who}, so nothing was sent. The server may be misbehaving.`,
  KT_UNAVAILABLE: () =>
    "The server has no key transparency log to check keys against, so nothing was sent.",
  DEVICE_LIST_INVALID: (who) =>
    `The list of ${who}'s devices could not be verified (it may name a device that is not theirs), so nothing was sent.`,
  DEVICE_LIST_CONFLICT: () =>
    "Another of your devices changed your device list at the same moment. Try again.",
  LINK_REFUSED: () =>
    "Your other device refused this link: the code was wrong or is used up. Check the code, or ask for a new one, and try again.",
  LINK_TIMEOUT: () =>
    "No answer came from the other device in time. Make sure it shows a code, then try again.",
  LINK_CODE_MALFORMED: () =>
    "That is not a link code. A code looks like 1-7K3M-9QX2-HT4W-PB6N: copy it from your other device.",
  SVC_NOT_FOUND: UNKNOWN,
  SVC_NOT_REGISTERED: UNKNOWN,
  SVC_NO_DEVICE_LIST: UNKNOWN,
  PEER_UNKNOWN: UNKNOWN,
  SVC_INVALID_ADDRESS: () => "That address is not valid: write it like bob or bob:1.",
  INVALID_ADDRESS: () => "That address is not valid: write it like bob or bob:1.",
  NO_ACCOUNT: () =>
    "That address names no account: write it as account:device, like alice:2, to link it.",
  SVC_IDENTITY_MISMATCH: () =>
    "That address already belongs to another device. Pick another device number, or link this browser to your account.",
  IDENTITY_CHANGED: (who) =>
    `${who}'s keys are not the ones you talked to before, so nothing was sent. Check with them that they set up a new device.`,
  PQ_DOWNGRADE: (who) => `The server withheld the post-quantum key of ${who}, so nothing was sent.`,
  NO_IDENTITY: () =>
    "This browser holds no device for that address (its data may have been cleared). Start a new account, or link this browser to yours.",
  STORE_LOCKED: () => "This address is open in another tab. Close it there, then try again.",
  SVC_RATE_LIMITED: () => "The server is busy. Wait a moment and try again.",
  SVC_INTERNAL: () => "The server had a problem. Try again in a moment.",
  SVC_TOO_LARGE: () => "That message is too long to send. Split it into shorter ones.",
  SVC_QUOTA_EXCEEDED: (who) => `${who}'s inbox is full for now. Try again later.`,
  DECRYPT_FAILED: () => "A message that arrived could not be decrypted and was set aside.",
  SENDER_MISMATCH: () =>
    "A message that arrived did not come from the keys its sender is known by, and was set aside.",
};

/** A RangeError is what the client throws for an address it cannot use. */
function codeOf(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error) {
    const { code } = error as { code: unknown };
    if (typeof code === "string") return code;
  }
  if (error instanceof RangeError) return "INVALID_ADDRESS";
  if (error instanceof TypeError) return "NETWORK";
  return "UNEXPECTED";
}
