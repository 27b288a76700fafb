import { unlink } from "node:fs/promises";
import { SvcError } from "@svc/protocol";
import { planStream } from "@svc/protocol/transfer";
import type { StreamRecord } from "../store/transfer-store.js";
import type { Receiver } from "./context.js";
import type { ReceivedFile } from "./options.js";

/**
 * A finish of an active or paused stream: only once every lane has its last chunk and the data's
 * SHA-256 is the one the sender named, in its start (version 1) or in this finish (version 2;
 * `sha256`), else 409, the stream left as it is. The file is linked into
 * place under a free name and the directory fsynced before the stream is marked finished; then
 * the partial file goes. A crash in between leaves the stream unfinished with its partial file,
 * so a finish sent again succeeds (saving a second copy if the first link was made).
 */
export async function finishStream(
  receiver: Receiver,
  stream: StreamRecord,
  sha256: string | undefined,
): Promise<void> {
  const { store, onFinished, logger } = receiver.options;
  const { streamId, size, chunkBytes } = stream;
  const plan = planStream({ size, chunkBytes, lanes: stream.lastSeqAcked.length });
  if (!plan.isComplete(stream.lastSeqAcked)) {
    throw new SvcError(
      "SVC_INVALID_TRANSITION",
      `finish before every chunk arrived (${plan.bytesAcked(stream.lastSeqAcked)} of ${size} bytes)`,
    );
  }
  const named = stream.sha256 ?? sha256;
  if ((await receiver.files.trimAndHash(streamId, size)) !== named) {
    throw new SvcError(
      "SVC_INVALID_TRANSITION",
      `the data's SHA-256 is not the ${stream.version === 1 ? "start" : "finish"} message's`,
    );
  }
  const path = await receiver.files.save(streamId, stream.name);
  if (!(await store.setStatus(streamId, stream.status, "finished"))) {
    await unlink(path);
    throw new SvcError("SVC_INVALID_TRANSITION", "the stream changed while finishing");
  }
  receiver.budget.release(streamId);
  await receiver.files.remove(streamId);
  logger.info("transfer finished", { streamId, sender: stream.sender, size });
  const file: ReceivedFile = {
    streamId,
    sender: stream.sender,
    name: stream.name,
    path,
    size,
    sha256: named as string,
  };
  try {
    await onFinished?.(file);
  } catch (error) {
    logger.warn("onFinished failed", { streamId, error: (error as Error)?.name ?? "unknown" });
  }
}
