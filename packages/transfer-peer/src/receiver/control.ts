import { decodeKey, SvcError } from "@svc/protocol";
import { type ControlMessage, checkForVersion, nextStreamStatus } from "@svc/protocol/transfer";
import type { StreamRecord } from "../store/transfer-store.js";
import type { Receiver } from "./context.js";
import { finishStream } from "./finish-stream.js";
import { startStream } from "./start-stream.js";

/**
 * Applies a control message that `sender` sealed (the caller holds the stream's lock). A stream
 * started by another sender is treated as absent, so its existence is not revealed; moves that
 * nextStreamStatus does not allow are 409 SVC_INVALID_TRANSITION, and so is what the stream's
 * version does not (checkForVersion). A rekey replaces the key of the chunks that follow.
 */
export async function applyControl(
  receiver: Receiver,
  sender: string,
  message: ControlMessage,
): Promise<void> {
  await receiver.ready();
  if (message.type === "start") return startStream(receiver, sender, message);
  const { store, logger, now } = receiver.options;
  const found = await store.get(message.streamId);
  const own = found?.sender === sender ? found : undefined;
  const next = nextStreamStatus(own?.status, message.type);
  // nextStreamStatus refuses every message but start for a stream that does not exist.
  const stream = own as StreamRecord;
  checkForVersion(stream.version, message);
  if (message.type === "finish") return finishStream(receiver, stream, message.sha256);
  if (message.type === "rekey") return rekeyStream(receiver, stream, message.key);
  if (!(await store.setStatus(stream.streamId, stream.status, next))) {
    throw new SvcError(
      "SVC_INVALID_TRANSITION",
      `the stream changed before it could ${message.type}`,
    );
  }
  if (next === "aborted") {
    await receiver.files.remove(stream.streamId);
    receiver.budget.release(stream.streamId);
  } else {
    receiver.budget.moved(stream.streamId, now());
  }
  logger.info(`transfer ${next}`, { streamId: stream.streamId, sender });
}

async function rekeyStream(receiver: Receiver, stream: StreamRecord, key: string): Promise<void> {
  const { store, logger, now } = receiver.options;
  if (!(await store.rekey(stream.streamId, decodeKey(key, 32, "key", "SVC_BAD_REQUEST")))) {
    throw new SvcError("SVC_INVALID_TRANSITION", "the stream changed before it could rekey");
  }
  receiver.budget.moved(stream.streamId, now());
  logger.info("transfer rekeyed", { streamId: stream.streamId, sender: stream.sender });
}
