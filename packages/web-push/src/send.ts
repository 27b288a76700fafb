import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { encryptWakeUp } from "./encrypt.js";
import { checkEndpointUrl, policyLookup } from "./endpoint-policy.js";
import { PushError } from "./errors.js";
import { retryWaitMs } from "./retry-after.js";
import { vapidAuthorization } from "./vapid-jwt.js";
import type { VapidKeys } from "./vapid-keys.js";

/** Where a message goes: a subscription's endpoint and its decoded keys. */
export interface PushTarget {
  endpoint: string;
  p256dh: Uint8Array;
  auth: Uint8Array;
}

export interface SendOptions {
  vapid: VapidKeys;
  /** The JWT's `sub`: a mailto: or https: URL to reach the operator; absent, no `sub`. */
  subject: string | undefined;
  /** Take http and private addresses (see checkEndpoint). */
  allowPrivate: boolean;
  /** The TTL header, seconds a push service keeps an undelivered message. Default 86400. */
  ttlSeconds?: number;
  /** The Urgency header. Default "high". */
  urgency?: "very-low" | "low" | "normal" | "high";
  /** The Topic header: a push service keeps only the latest message of a topic. */
  topic?: string;
  /** Per attempt, from the request to the answer's status. Default 10000. */
  timeoutMs?: number;
  /** Attempts in all, retries of 429, 5xx, timeouts and network errors included. Default 3. */
  maxAttempts?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** What stretches the backoff waits (see retryWaitMs). Default Math.random. */
  random?: () => number;
}

/**
 * sent: 2xx. gone: 404 or 410, the subscription no longer exists. refused: the endpoint failed
 * the policy (before the request, or at connect time). failed: anything else, after the retries
 * (`reason` says what: "HTTP <status>", "timeout" or the network error's code, e.g. ENOTFOUND).
 * `attempts` counts the tries; a refused one is not among them, since it sends nothing.
 */
export type SendOutcome = {
  outcome: "sent" | "gone" | "failed" | "refused";
  status?: number;
  attempts: number;
  reason?: string;
};

/** Bytes of an answer's body read to keep its connection for the next message. */
const MAX_DRAINED_BODY = 64 * 1024;

const DEFAULTS = {
  ttlSeconds: 86_400,
  urgency: "high",
  timeoutMs: 10_000,
  maxAttempts: 3,
} as const;

/**
 * One RFC 8030 message: the plaintext encrypted (RFC 8291) once, POSTed with a VAPID
 * Authorization (RFC 8292). Redirects are never followed (a 3xx fails). 429, 5xx, timeouts and
 * network errors are retried with Retry-After or 1 s, 2 s (each stretched by up to half). Never
 * throws.
 */
export async function sendWebPush(
  target: PushTarget,
  plaintext: Uint8Array,
  options: SendOptions,
): Promise<SendOutcome> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULTS.maxAttempts);
  let url: URL;
  let body: Uint8Array;
  try {
    // A name's addresses are checked in the request's lookup, once, on the addresses used.
    url = checkEndpointUrl(target.endpoint, options);
    body = encryptWakeUp(plaintext, target);
  } catch (error) {
    return refusedOrFailed(error, 0);
  }
  for (let attempt = 1; ; attempt++) {
    let answer: Answer;
    try {
      answer = await post(url, body, options, now());
    } catch (error) {
      // Refused before connecting: this attempt made no request.
      return refusedOrFailed(error, attempt - 1);
    }
    const outcome = judge(answer, attempt);
    if (outcome !== undefined) return outcome;
    if (attempt >= maxAttempts) {
      return { outcome: "failed", attempts: attempt, ...describe(answer) };
    }
    const retryAfter = "error" in answer ? undefined : answer.retryAfter;
    await sleep(retryWaitMs(retryAfter, attempt, now(), options.random));
  }
}

/** What one attempt got: a status (and its Retry-After), or a timeout or network error. */
type Answer = { status: number; retryAfter?: string } | { error: string };

/** The outcome an answer settles, or undefined when it is to be retried. */
function judge(answer: Answer, attempt: number): SendOutcome | undefined {
  if ("error" in answer) return undefined;
  const { status } = answer;
  if (status >= 200 && status < 300) return { outcome: "sent", status, attempts: attempt };
  if (status === 404 || status === 410) return { outcome: "gone", status, attempts: attempt };
  if (status === 429 || status >= 500) return undefined;
  return { outcome: "failed", status, attempts: attempt, reason: `HTTP ${status}` };
}

function describe(answer: Answer): { status?: number; reason: string } {
  return "error" in answer
    ? { reason: answer.error }
    : { status: answer.status, reason: `HTTP ${answer.status}` };
}

function refusedOrFailed(error: unknown, attempts: number): SendOutcome {
  if (error instanceof PushError && error.code === "ENDPOINT_REFUSED") {
    return { outcome: "refused", attempts, reason: error.message };
  }
  return {
    outcome: "failed",
    attempts,
    reason: error instanceof PushError ? error.message : "could not send",
  };
}

/**
 * One POST. Resolves with the status or a retryable error; rejects only with the policy's
 * refusal at connect time.
 */
function post(url: URL, body: Uint8Array, options: SendOptions, nowMs: number): Promise<Answer> {
  const headers: Record<string, string> = {
    Authorization: vapidAuthorization(url.href, options.vapid, options.subject, nowMs),
    "Content-Encoding": "aes128gcm",
    "Content-Type": "application/octet-stream",
    "Content-Length": String(body.length),
    TTL: String(options.ttlSeconds ?? DEFAULTS.ttlSeconds),
    Urgency: options.urgency ?? DEFAULTS.urgency,
  };
  if (options.topic !== undefined) headers.Topic = options.topic;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  return new Promise((resolve, reject) => {
    let req: ClientRequest;
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ error: "timeout" });
    }, timeoutMs);
    const settle = (answer: Answer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    req = send(url, { method: "POST", headers, lookup: policyLookup(options) }, (res) => {
      // The body is not read; an error while it drains changes nothing. A long or unsized body
      // ends the connection rather than keep it busy for an answer already judged.
      res.on("error", () => {});
      if (Number(res.headers["content-length"] ?? Number.NaN) <= MAX_DRAINED_BODY) res.resume();
      else res.destroy();
      settle(answerOf(res));
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error instanceof PushError) reject(error);
      else resolve({ error: error.code ?? "network error" });
    });
    req.end(body);
  });
}

function answerOf(res: IncomingMessage): Answer {
  const status = res.statusCode ?? 0;
  const retryAfter = res.headers["retry-after"];
  return retryAfter === undefined ? { status } : { status, retryAfter };
}
