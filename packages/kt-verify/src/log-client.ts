import { KtVerifyError } from "./errors.js";
import { parseSth, type SignedTreeHead } from "./sth.js";
import {
  fieldBytes,
  fieldBytesArray,
  fieldCount,
  fieldHashes,
  malformed,
  requireObject,
} from "./wire.js";

/** The read-only key-transparency routes of a prekey server. */
export interface LogClient {
  /** GET /v1/kt/log_id: the operator public key, checked against its logId. */
  logPublicKey(): Promise<Uint8Array>;
  /** GET /v1/kt/sth, or GET /v1/kt/sth/{treeSize}. */
  sth(treeSize?: number): Promise<SignedTreeHead>;
  /** GET /v1/kt/consistency?from&to: the proof hashes. */
  consistency(from: number, to: number): Promise<Uint8Array[]>;
  /** GET /v1/kt/leaves?start&end: encoded leaves start..end-1 (the server caps a page). */
  leaves(start: number, end: number): Promise<Uint8Array[]>;
  /**
   * GET /v1/kt/checkpoint: the latest checkpoint note (text, with its cosignatures), unchecked.
   * Needed by a `KtVerifier` with a witness policy; servers before KT v2 have none.
   */
  checkpoint?(): Promise<string>;
}

export type FetchFunction = (url: string) => Promise<Response>;

/** A {@link LogClient} over HTTP; every failure is a KtVerifyError (KT_FETCH_FAILED or KT_MALFORMED). */
export function httpLogClient(
  baseUrl: string,
  fetchFunction: FetchFunction = (url) => globalThis.fetch(url),
): LogClient {
  if (typeof baseUrl !== "string" || !/^https?:\/\//.test(baseUrl)) {
    throw new TypeError("baseUrl must be an http(s) URL");
  }
  const base = baseUrl.replace(/\/+$/, "");

  async function get(path: string): Promise<Response> {
    let response: Response;
    try {
      response = await fetchFunction(`${base}${path}`);
    } catch (error) {
      throw new KtVerifyError("KT_FETCH_FAILED", `GET ${path} failed: ${describe(error)}`);
    }
    if (response.status !== 200) {
      throw new KtVerifyError("KT_FETCH_FAILED", `GET ${path} answered ${response.status}`);
    }
    return response;
  }

  async function getJson(path: string): Promise<Record<string, unknown>> {
    const response = await get(path);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw malformed(`GET ${path} did not answer JSON`);
    }
    return requireObject(body, `GET ${path}`);
  }

  return {
    async logPublicKey() {
      const body = await getJson("/v1/kt/log_id");
      return fieldBytes(body, "publicKey", "log_id", 32);
    },
    async sth(treeSize) {
      const path = treeSize === undefined ? "/v1/kt/sth" : `/v1/kt/sth/${count(treeSize)}`;
      return parseSth(await getJson(path));
    },
    async consistency(from, to) {
      const path = `/v1/kt/consistency?from=${count(from)}&to=${count(to)}`;
      const body = await getJson(path);
      if (
        fieldCount(body, "fromTreeSize", path) !== from ||
        fieldCount(body, "toTreeSize", path) !== to
      ) {
        throw malformed(`${path} answered for other tree sizes`);
      }
      return fieldHashes(body, "proof", path);
    },
    async leaves(start, end) {
      if (count(start) >= count(end)) return [];
      const path = `/v1/kt/leaves?start=${count(start)}&end=${count(end)}`;
      const body = await getJson(path);
      if (fieldCount(body, "start", path) !== start)
        throw malformed(`${path} answered another range`);
      const leaves = fieldBytesArray(body, "leaves", path);
      if (leaves.length === 0 || leaves.length > end - start) {
        throw malformed(`${path} answered ${leaves.length} leaves`);
      }
      return leaves;
    },
    async checkpoint() {
      const response = await get("/v1/kt/checkpoint");
      try {
        return await response.text();
      } catch (error) {
        throw new KtVerifyError(
          "KT_FETCH_FAILED",
          `GET /v1/kt/checkpoint failed: ${describe(error)}`,
        );
      }
    },
  };
}

function count(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${n} is not a tree size`);
  return n;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
