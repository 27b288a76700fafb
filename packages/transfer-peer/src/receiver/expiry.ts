import { UNFINISHED } from "../store/transfer-store.js";
import type { Receiver } from "./context.js";

/**
 * What the receiver's directory holds when it starts: each partial file whose stream is
 * unfinished counts against the budget; the others (a crash between making one and recording
 * its stream, or between a stream's end or expiry and its file's removal) are removed. Control
 * messages wait for it, so nothing starts, finishes or aborts meanwhile.
 */
export async function loadBudget(receiver: Receiver): Promise<void> {
  const { store } = receiver.options;
  for (const { streamId } of await receiver.files.partialFiles()) {
    const stream = await store.get(streamId);
    if (stream !== undefined && UNFINISHED.includes(stream.status)) {
      receiver.budget.hold(streamId, stream.sender, stream.size, stream.updatedAt);
    } else {
      await receiver.files.remove(streamId);
    }
  }
}

/**
 * Expires every unfinished stream that has not moved for partialTtlMs: its record and then its
 * partial file are removed, and its bytes given back. A stream that moved meanwhile (a chunk,
 * a control message, another receiver on the same database) stays. Resolves to how many expired.
 */
export async function expireIdle(receiver: Receiver): Promise<number> {
  await receiver.ready();
  const { store, now, partialTtlMs, logger } = receiver.options;
  const idleSince = now() - partialTtlMs;
  let expired = 0;
  for (const streamId of receiver.budget.idleSince(idleSince)) {
    await receiver.streams.run(streamId, async () => {
      const stream = await store.get(streamId);
      if (stream === undefined || !UNFINISHED.includes(stream.status)) {
        // Ended or removed elsewhere (another receiver on the same database): nothing to keep.
        await receiver.files.remove(streamId);
        receiver.budget.release(streamId);
      } else if (await store.removeIdle(streamId, idleSince)) {
        await receiver.files.remove(streamId);
        receiver.budget.release(streamId);
        logger.info("transfer expired", { streamId, sender: stream.sender, size: stream.size });
        expired++;
      } else {
        receiver.budget.moved(streamId, stream.updatedAt);
      }
    });
  }
  return expired;
}
