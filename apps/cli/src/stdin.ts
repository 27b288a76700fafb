import { MAX_STDIN_BYTES, UsageError } from "./args.js";

/**
 * `svc send`'s message from stdin: UTF-8, at most MAX_STDIN_BYTES, without one final newline
 * (what `echo` and a here-document add). Anything else is a UsageError.
 */
export async function readMessage(input: AsyncIterable<Uint8Array | string>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    size += bytes.length;
    if (size > MAX_STDIN_BYTES) {
      throw new UsageError(
        `the message on stdin is over ${MAX_STDIN_BYTES / 1024} KiB (${MAX_STDIN_BYTES} bytes)`,
        "send",
      );
    }
    chunks.push(bytes);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new UsageError("the message on stdin is not UTF-8", "send");
  }
  text = text.replace(/\r?\n$/, "");
  if (text === "") throw new UsageError("the message is empty", "send");
  return text;
}
