/**
 * A text/event-stream response body fed by `write`, for routes that answer with a web Response
 * (the observer); bridges write to the node response instead (EventStream). The stream ends when the client goes away
 * (the runtime cancels the body) or when `close` is called, and `onClose` runs exactly once.
 */
export interface WebEventStream {
  readonly response: Response;
  event(name: string, data: unknown, id?: string): void;
  comment(text: string): void;
  close(): void;
}

export function createWebEventStream(onClose: () => void): WebEventStream {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel: finish,
  });
  const write = (text: string) => {
    if (!closed) controller?.enqueue(encoder.encode(text));
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
