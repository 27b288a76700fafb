import { decodeKey, SvcError } from "@svc/protocol";
import {
  CHUNK_OVERHEAD_BYTES,
  type ControlMessage,
  nextStreamStatus,
  planStream,
} from "@svc/protocol/transfer";
import { safeFileName } from "../partial/safe-name.js";
import type { Receiver } from "./context.js";
import { expireIdle } from "./expiry.js";

type StartMessage = Extract<ControlMessage, { type: "start" }>;

/**
 * A start from `sender`: a new stream (409 when its id is taken), of at most maxStreamBytes and
 * with chunks that fit maxChunkBytes (413), at most maxLanes lanes (400), its name made safe,
 * and room for it in the budget (429, 507; see StreamBudget.reserve), all before anything is
 * written. Its partial file is made before it is recorded, so that no recorded stream lacks one.
 */
export async function startStream(
  receiver: Receiver,
  sender: string,
  message: StartMessage,
): Promise<void> {
  const { store, maxStreamBytes, maxChunkBytes, maxLanes, now, logger } = receiver.options;
  const { maxReservedBytesPerSender, maxReservedBytes } = receiver.options;
  const { streamId, size, chunkBytes, lanes } = message;
  nextStreamStatus((await store.get(streamId))?.status, "start");
  if (size > maxStreamBytes) {
    throw new SvcError("SVC_TOO_LARGE", `size exceeds this receiver's ${maxStreamBytes} bytes`);
  }
  const room = Math.min(maxReservedBytesPerSender, maxReservedBytes);
  if (size > room) {
    throw new SvcError("SVC_TOO_LARGE", `size exceeds the ${room} bytes this receiver sets aside`);
  }
  if (chunkBytes > maxChunkBytes - CHUNK_OVERHEAD_BYTES) {
    throw new SvcError(
      "SVC_TOO_LARGE",
      `chunkBytes exceeds this receiver's ${maxChunkBytes - CHUNK_OVERHEAD_BYTES} bytes`,
    );
  }
  if (lanes > maxLanes) {
    throw new SvcError("SVC_BAD_REQUEST", `lanes exceeds this receiver's ${maxLanes}`);
  }
  planStream({ size, chunkBytes, lanes });
  const name = safeFileName(message.name);
  const key = decodeKey(message.key, 32, "key", "SVC_BAD_REQUEST");

  await reserve(receiver, streamId, sender, size);
  try {
    await receiver.files.prepare(streamId);
    const at = now();
    await store.create({
      streamId,
      sender,
      name,
      size,
      ...(message.version === 2
        ? { version: 2 as const, cipher: message.cipher ?? "aes-256-gcm" }
        : { version: 1 as const, cipher: "chacha20-poly1305" as const, sha256: message.sha256 }),
      chunkBytes,
      key,
      status: "active",
      lastSeqAcked: Array.from({ length: lanes }, () => 0n),
      createdAt: at,
      updatedAt: at,
    });
  } catch (error) {
    receiver.budget.release(streamId);
    throw error;
  }
  logger.info("transfer started", { streamId, sender, size, lanes, chunkBytes });
}

/** Takes the stream's room; when there is none, expires idle streams and tries once more. */
async function reserve(
  receiver: Receiver,
  streamId: string,
  sender: string,
  size: number,
): Promise<void> {
  const { budget, options } = receiver;
  try {
    budget.reserve(streamId, sender, size, options.now());
    return;
  } catch (error) {
    if (!(error instanceof SvcError) || (await expireIdle(receiver)) === 0) throw error;
  }
  budget.reserve(streamId, sender, size, options.now());
}
