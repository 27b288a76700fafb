import { ClientError } from "../errors.js";
import { errorOf } from "../http.js";
import { type Connection, parseEnvelope, type TransportContext } from "./transport.js";

/**
 * The SSE bridge, read with fetch rather than EventSource: EventSource is missing on Node and
 * would reconnect by itself with the first URL, whose signature goes stale after five minutes;
 * here every reconnect signs a new URL from the cursor.
 */
export async function sseTransport(context: TransportContext): Promise<Connection> {
  const url = context.url("stream", context.since());
  let response: Response;
  try {
    response = await context.fetch(url, {
      headers: { accept: "text/event-stream" },
      signal: context.signal,
    });
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    throw new ClientError("NETWORK", "the SSE bridge could not connect", { cause: error });
  }
  if (!response.ok) throw await errorOf(response, { method: "GET", path: "/v1/bridge/stream" });
  if (response.body === null) throw new ClientError("BAD_RESPONSE", "the SSE bridge sent no body");
  return { ended: readEvents(response.body, context) };
}

/** Reads `event: envelope` events until the stream ends; resolves with why it ended. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  context: TransportContext,
): Promise<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = { name: "message", data: [] as string[] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return new ClientError("NETWORK", "the SSE bridge ended");
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const raw of lines) {
        const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
        if (line === "") {
          if (event.name === "envelope" && event.data.length > 0) {
            void context.deliver([parseEnvelope(event.data.join("\n"))]);
          }
          event = { name: "message", data: [] };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event.name = text;
        else if (field === "data") event.data.push(text);
      }
    }
  } catch (error) {
    return context.signal.aborted ? undefined : error;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
