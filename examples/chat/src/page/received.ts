import type { ReceivedMessage, SvcClient } from "@svc/client";
import { accountOf } from "@svc/protocol";
import type { HistoryEntry } from "./history.js";

const decoder = new TextDecoder();

/**
 * A message for this device, or a copy of one another device of this account sent, as the
 * history keeps it: the page and the service worker write the same entry for the same message.
 */
export async function receivedEntry(
  client: SvcClient,
  message: ReceivedMessage,
): Promise<HistoryEntry> {
  const peer = message.sent ? message.to : message.from;
  return {
    id: message.msgId,
    conversation: accountOf(peer) ?? peer,
    direction: message.sent ? "out" : "in",
    from: message.from,
    to: message.to,
    text: decoder.decode(message.plaintext),
    at: message.receivedAt,
    state: message.sent ? "sent" : "received",
    sentCopy: message.sent === true,
    postQuantum: await isPostQuantum(client, message.from),
  };
}

/** Whether the session a message went over was set up with PQXDH (ML-KEM-1024 and X25519). */
export async function isPostQuantum(client: SvcClient, peer: string): Promise<boolean> {
  try {
    return (await client.session(peer)).postQuantum;
  } catch {
    return false;
  }
}
