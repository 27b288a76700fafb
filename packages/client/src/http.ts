import { ERROR_STATUS, type ErrorCode, ErrorResponseSchema, SvcError } from "@svc/protocol";
import * as v from "valibot";
import { ClientError } from "./errors.js";

/** A Retry-After longer than this is not waited for: the refusal is thrown at once. */
export const MAX_RETRY_WAIT_SECONDS = 60;

export interface HttpOptions {
  /** Base URL without a trailing slash. */
  server: string;
  fetch: typeof fetch;
  maxRetries: number;
  requestTimeoutMs: number;
}

export interface HttpCall<TSchema extends v.GenericSchema> {
  method: "GET" | "POST" | "DELETE";
  /** The request path exactly as sent and, for signed bodies, as signed. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Built again for every attempt, so a retried signed body carries a fresh signedAt. */
  body?: () => Promise<Record<string, unknown>>;
  /** The success answer's schema; every answer is validated against it. */
  response: TSchema;
  signal?: AbortSignal | undefined;
  /** Time the server may hold the request on purpose (a long-poll), on top of the timeout. */
  holdMs?: number;
}

/**
 * Sends one JSON request: a non-2xx ErrorResponse becomes SvcError, a 429 or 503 is retried after
 * its Retry-After (up to maxRetries), and a success answer that does not match the route's schema
 * is ClientError BAD_RESPONSE. Validating every answer costs microseconds next to the round trip.
 */
export async function request<TSchema extends v.GenericSchema>(
  options: HttpOptions,
  call: HttpCall<TSchema>,
): Promise<v.InferOutput<TSchema>> {
  const url = urlOf(options.server, call.path, call.query);
  for (let attempt = 0; ; attempt++) {
    const init: RequestInit = { method: call.method };
    if (call.body) {
      init.body = JSON.stringify(await call.body());
      init.headers = { "content-type": "application/json" };
    }
    const timeout = AbortSignal.timeout(options.requestTimeoutMs + (call.holdMs ?? 0));
    init.signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    const response = await send(options.fetch, url, init, call, timeout);
    if (response.ok) return parseAnswer(response, call);
    const error = await errorOf(response, call);
    const wait = retryWait(error);
    if (wait === undefined || attempt >= options.maxRetries) throw error;
    await sleep(wait * 1000, call.signal);
  }
}

export function urlOf(
  server: string,
  path: string,
  query: Record<string, string | number | undefined> = {},
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const search = params.size > 0 ? `?${params}` : "";
  return `${server}${path}${search}`;
}

/** A server answer that is not 2xx, as the error it stands for. */
export async function errorOf(
  response: Response,
  call: { method: string; path: string },
): Promise<SvcError | ClientError> {
  const route = `${call.method} ${call.path}`;
  const json = await response.json().catch(() => undefined);
  const parsed = v.safeParse(ErrorResponseSchema, json);
  if (!parsed.success) {
    return new ClientError(
      "BAD_RESPONSE",
      `${route} answered ${response.status} without an ErrorResponse`,
    );
  }
  const { name: _name, code, message, ...extra } = parsed.output;
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
  return new SvcError(code as ErrorCode, message, {
    status: response.status,
    extra,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
  });
}

async function send(
  fetchFunction: typeof fetch,
  url: string,
  init: RequestInit,
  call: { method: string; path: string; signal?: AbortSignal | undefined },
  timeout: AbortSignal,
): Promise<Response> {
  try {
    return await fetchFunction(url, init);
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason;
    if (timeout.aborted) {
      throw new ClientError("TIMEOUT", `${call.method} ${call.path}: the server did not answer`, {
        cause: error,
      });
    }
    throw new ClientError("NETWORK", `${call.method} ${call.path} failed: ${describe(error)}`, {
      cause: error,
    });
  }
}

async function parseAnswer<TSchema extends v.GenericSchema>(
  response: Response,
  call: HttpCall<TSchema>,
): Promise<v.InferOutput<TSchema>> {
  const route = `${call.method} ${call.path}`;
  const json: unknown = await response.json().catch(() => undefined);
  const parsed = v.safeParse(call.response, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = issue ? (v.getDotPath(issue) ?? "answer") : "answer";
    throw new ClientError(
      "BAD_RESPONSE",
      `${route} answered a body that is not the schema's: ${where}: ${issue?.message}`,
    );
  }
  return parsed.output;
}

/** Seconds to wait before retrying, or undefined when the refusal is not worth retrying. */
function retryWait(error: SvcError | ClientError): number | undefined {
  if (!(error instanceof SvcError)) return undefined;
  if (error.status !== ERROR_STATUS.SVC_RATE_LIMITED && error.status !== 503) return undefined;
  const wait = error.retryAfterSeconds ?? 1;
  return wait <= MAX_RETRY_WAIT_SECONDS ? wait : undefined;
}

function parseRetryAfter(header: string | null): number | undefined {
  if (header === null || !/^\d{1,9}$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
