import { accountOf, DeviceMessageError, decodeDeviceFrame, isDeviceFrame } from "@svc/protocol";
import { ClientError } from "./errors.js";
import type { InboundMessage, ReceivedMessage } from "./inbound.js";
import type { Reading } from "./mailbox.js";
import type { KnownDeviceList, StoredState } from "./state.js";

/** What reading a message needs from its client. */
export interface FrameContext {
  state: StoredState;
  /** The own account's verified list: the one remembered, or (`again`) read from the server. */
  ownList(again: boolean): Promise<KnownDeviceList | undefined>;
}

/**
 * What a decrypted message is. A device frame from another device of this account is read:
 * a sent copy is handed over as the message it copies (`to`, `sent: true`) when its sender is on
 * the account's verified list under the keys its session has (else refused: a device the
 * account never listed must not put words in its mouth); link frames are taken, since they mean
 * something only to a link in progress. Anything else, from anyone, is handed over untouched.
 */
export async function readMessage(
  context: FrameContext,
  message: InboundMessage,
): Promise<Reading> {
  const { state } = context;
  const account = accountOf(state.address);
  const plain: ReceivedMessage = { ...message, to: account ?? state.address };
  if (
    account === undefined ||
    accountOf(message.from) !== account ||
    !isDeviceFrame(message.plaintext)
  ) {
    return { kind: "deliver", message: plain };
  }
  let frame: ReturnType<typeof decodeDeviceFrame>;
  try {
    frame = decodeDeviceFrame(message.plaintext);
  } catch (error) {
    if (!(error instanceof DeviceMessageError)) throw error;
    return refuse(message, error.message, error);
  }
  if (frame.kind !== "sent-copy") return { kind: "taken" };
  const listed =
    listedUnder(state, await context.ownList(false), message.from) ||
    listedUnder(state, await context.ownList(true), message.from);
  if (!listed) {
    return refuse(message, `${message.from} is not on ${account}'s verified device list`);
  }
  return {
    kind: "deliver",
    message: { ...message, plaintext: frame.plaintext, to: frame.to, sent: true },
  };
}

/** Whether `address` is on `list` with the signing key its session was set up with. */
function listedUnder(
  state: StoredState,
  list: KnownDeviceList | undefined,
  address: string,
): boolean {
  const entry = list?.devices.find((device) => device.address === address);
  const keys = state.peers[address];
  return (
    entry !== undefined &&
    keys !== undefined &&
    entry.identitySigningKey === keys.identitySigningKey
  );
}

function refuse(message: InboundMessage, why: string, cause?: unknown): Reading {
  return {
    kind: "refuse",
    error: new ClientError(
      "DEVICE_LIST_INVALID",
      `a device message from ${message.from} is refused: ${why}`,
      cause === undefined ? { msgId: message.msgId } : { msgId: message.msgId, cause },
    ),
  };
}
