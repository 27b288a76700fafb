import { decodeBase64, isValidKeyName } from "@svc/signed-note";
import { formatAddCheckpoint } from "./add-checkpoint.js";
import { WitnessError } from "./errors.js";

/** What a witness answered an add-checkpoint request. */
export type SubmitResult =
  /** 200: the cosignature lines, each `— <name> <base64>` and a newline, NOT yet verified. */
  | { type: "cosigned"; lines: string[] }
  /** 409: the size of the latest checkpoint the witness cosigned for the log. */
  | { type: "conflict"; size: number }
  /** Any other status, with the witness's message (its body, trimmed). */
  | { type: "refused"; status: number; message: string };

export interface SubmitOptions {
  /** The witness's submission prefix, e.g. `http://witness.example:7380`. */
  url: string;
  oldSize: number;
  proof: readonly Uint8Array[];
  /** The signed checkpoint note. */
  checkpoint: string;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
  /** How long the request may take, answer included. Default 10 s. */
  timeoutMs?: number;
}

/** The largest answer read; a witness's cosignature lines are a few hundred bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;
// An em dash, a space, a key name, a space, base64 of a 4-byte key ID and a signature.
const SIGNATURE_LINE = /^\u2014 (\S+) (\S+)$/;
const SIZE_BODY = /^(0|[1-9][0-9]{0,15})\n$/;

/**
 * The log's side of `POST <url>/add-checkpoint`. Checks the shape of the answer (the 200 lines,
 * the 409 body and its `text/x.tlog.size` type; else WitnessError WITNESS_BAD_RESPONSE) but NOT
 * the cosignatures: append the lines to the checkpoint and open it with `openNote` and the
 * witness's verifier key (type 0x04) before trusting them. A network failure or a timeout
 * throws WitnessError WITNESS_UNREACHABLE; an abort of `signal` rejects with its reason.
 */
export async function submitCheckpoint(options: SubmitOptions): Promise<SubmitResult> {
  const body = formatAddCheckpoint(options);
  const fetchFunction = options.fetch ?? globalThis.fetch;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const url = `${options.url.replace(/\/+$/, "")}/add-checkpoint`;
  let status: number;
  let contentType: string;
  let text: string;
  try {
    const response = await fetchFunction(url, {
      method: "POST",
      headers: { "content-type": "text/plain; charset=utf-8" },
      body,
      signal,
    });
    status = response.status;
    contentType = response.headers.get("content-type") ?? "";
    text = await readText(response);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof WitnessError) throw error;
    const why = timeout.aborted ? `no answer within ${options.timeoutMs ?? 10_000} ms` : "failed";
    throw new WitnessError("WITNESS_UNREACHABLE", `POST ${url} ${why}`, { cause: error });
  }
  if (status === 200) return { type: "cosigned", lines: cosignatureLines(text) };
  if (status === 409) {
    const match = SIZE_BODY.exec(text);
    if (mediaType(contentType) !== "text/x.tlog.size" || match?.[1] === undefined) {
      throw badResponse("a 409 answer is the latest size and a newline, as text/x.tlog.size");
    }
    const size = Number(match[1]);
    if (!Number.isSafeInteger(size)) throw badResponse("the 409 size is larger than 2^53 - 1");
    return { type: "conflict", size };
  }
  return { type: "refused", status, message: text.trim().slice(0, 1000) };
}

/** One or more signature lines, each kept with its newline so they append to a note as is. */
function cosignatureLines(text: string): string[] {
  if (text === "" || !text.endsWith("\n")) {
    throw badResponse("a 200 answer is one or more signature lines, each ending in a newline");
  }
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => {
      const match = SIGNATURE_LINE.exec(line);
      const name = match?.[1];
      const signature = match?.[2] === undefined ? undefined : decodeBase64(match[2]);
      if (name === undefined || !isValidKeyName(name) || signature === undefined) {
        throw badResponse("a signature line is '— <name> <base64>'");
      }
      if (signature.length < 5) throw badResponse("a signature holds a key ID and a signature");
      return `${line}\n`;
    });
}

async function readText(response: Response): Promise<string> {
  const length = Number(response.headers.get("content-length") ?? "0");
  if (length > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw badResponse(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
    size += read.value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader?.cancel();
      throw badResponse(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw badResponse("the answer is not UTF-8");
  }
}

function mediaType(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

function badResponse(message: string): WitnessError {
  return new WitnessError("WITNESS_BAD_RESPONSE", `the witness's answer: ${message}`);
}
