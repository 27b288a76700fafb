import type { Connection, TransportContext } from "./transport.js";

/** How long one long-poll may be held (the server's default). */
export const POLL_TIMEOUT_MS = 25_000;

/**
 * The long-poll bridge. Connected once a first poll (timeoutMs=0) has answered; each next poll
 * waits until the previous batch is processed, so it starts from the new cursor.
 */
export async function pollTransport(context: TransportContext): Promise<Connection> {
  const first = await context.poll(context.since(), 0);
  const ended = (async () => {
    let envelopes = first;
    for (;;) {
      if (envelopes.length > 0) await context.deliver(envelopes);
      if (context.signal.aborted) return undefined;
      try {
        envelopes = await context.poll(context.since(), POLL_TIMEOUT_MS);
      } catch (error) {
        return context.signal.aborted ? undefined : error;
      }
    }
  })();
  return { ended };
}
