import { SvcError } from "@svc/protocol";
import { type ControlMessage, nextStreamStatus } from "@svc/protocol/transfer";
import type { StreamRecord } from "../store/transfer-store.js";
import type { Receiver } from "./context.js";
import { finishStream } from "./finish-stream.js";
import { startStream } from "./start-stream.js";

/**
 * Applies a control message that `sender` sealed (the caller holds the stream's lock). A stream
 * started by another sender is treated as absent, so its existence is not revealed; moves that
 * nextStreamStatus does not allow are 409 SVC_INVALID_TRANSITION.
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
  if (message.type === "finish") return finishStream(receiver, stream);
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
