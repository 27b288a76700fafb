/**
 * A text/event-stream response body fed by `write`, for routes that answer with a web Response
 * (the observer); bridges write to the node response instead (EventStream). The stream ends when the client goes away
 * (the runtime cancels the body), when `close` is called, or when more than 1 MiB is waiting for a
 * client that does not read; `onClose` runs exactly once.
 */
export interface WebEventStream {
  readonly response: Response;
  event(name: string, data: unknown, id?: string): void;
  comment(text: string): void;
  close(): void;
}

/** What a stream is expected to hold at most while its client keeps up. */
const QUEUED_BYTES_EXPECTED = 64 * 1024;
/** A client with more than this queued for it is cut off, as bridge consumers are (D7). */
export const MAX_QUEUED_BYTES = 1024 * 1024;

export function createWebEventStream(onClose: () => void): WebEventStream {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel: finish,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: QUEUED_BYTES_EXPECTED }),
  );
  const write = (text: string) => {
    if (closed || !controller) return;
    // A client that does not read (the server writes only as fast as the socket drains) would
    // otherwise have every later event queued here: past the limit it is cut off.
    if ((controller.desiredSize ?? 0) < QUEUED_BYTES_EXPECTED - MAX_QUEUED_BYTES) {
      controller.error(new Error("the client fell more than 1 MiB behind"));
      finish();
      return;
    }
    controller.enqueue(encoder.encode(text));
  };
  return {
    response: new Response(body, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        "X-Accel-Buffering": "no",
      },
    }),
    event(name, data, id) {
      write(
        `${id === undefined ? "" : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`,
      );
    },
    comment(text) {
      write(`: ${text}\n\n`);
    },
    close() {
      if (closed) return;
      controller?.close();
      finish();
    },
  };
}
