import { equalBytes, normalizeAddress } from "@svc/canonical";
import { KtVerifyError } from "./errors.js";
import { VRF_PROOF_SIZE } from "./proof.js";
import { logIdOf, parseSth, type SignedTreeHead } from "./sth.js";
import {
  fieldBytes,
  fieldBytesArray,
  fieldCount,
  fieldHashes,
  malformed,
  requireObject,
} from "./wire.js";

/** GET /v1/kt/log_id: the log's identity; `vrfPublicKey` only from a log with a private index. */
export interface KtLogId {
  /** SHA-256 of `publicKey` (checked). */
  logId: Uint8Array;
  /** The operator's Ed25519 public key, which signs the STHs. */
  publicKey: Uint8Array;
  /** The VRF public key of the format-3 index (protocol.md §9 "Private index"). */
  vrfPublicKey?: Uint8Array;
}

/** GET /v1/kt/vrf/{address}: an address's VRF index and its proof, unverified. */
export interface KtVrfAnswer {
  /** The normalized address, as the server answered it (the one asked for, checked). */
  address: string;
  /** 32 bytes: the address's key in a format-3 index map. */
  index: Uint8Array;
  /** 80 bytes: the ECVRF proof (check it with `vrfIndex`). */
  vrfProof: Uint8Array;
}

/** The read-only key-transparency routes of a prekey server. */
export interface LogClient {
  /** GET /v1/kt/log_id: the operator public key, checked against its logId. */
  logPublicKey(): Promise<Uint8Array>;
  /** GET /v1/kt/log_id, all of it: logId and publicKey (checked together), vrfPublicKey if any. */
  logId?(): Promise<KtLogId>;
  /**
   * GET /v1/kt/vrf/{address}: the address's VRF index and proof (format-3 logs), for monitors
   * watching an address without fetching its bundle. Not verified here.
   */
  vrf?(address: string): Promise<KtVrfAnswer>;
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

/** {@link httpLogClient}'s: every route, the optional ones included. */
export type HttpLogClient = Required<LogClient>;

/** A {@link LogClient} over HTTP; every failure is a KtVerifyError (KT_FETCH_FAILED or KT_MALFORMED). */
export function httpLogClient(
  baseUrl: string,
  fetchFunction: FetchFunction = (url) => globalThis.fetch(url),
): HttpLogClient {
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

  async function logId(): Promise<KtLogId> {
    const body = await getJson("/v1/kt/log_id");
    const id = fieldBytes(body, "logId", "log_id", 32);
    const publicKey = fieldBytes(body, "publicKey", "log_id", 32);
    if (!equalBytes(logIdOf(publicKey), id)) {
      throw malformed("GET /v1/kt/log_id: logId is not SHA-256 of publicKey");
    }
    if (body.vrfPublicKey === undefined) return { logId: id, publicKey };
    return { logId: id, publicKey, vrfPublicKey: fieldBytes(body, "vrfPublicKey", "log_id", 32) };
  }

  return {
    async logPublicKey() {
      const body = await getJson("/v1/kt/log_id");
      return fieldBytes(body, "publicKey", "log_id", 32);
    },
    logId,
    async vrf(address) {
      const normalized = addressOf(address);
      const path = `/v1/kt/vrf/${segment(normalized)}`;
      const body = await getJson(path);
      if (body.address !== normalized) throw malformed(`${path} answered for another address`);
      return {
        address: normalized,
        index: fieldBytes(body, "index", path, 32),
        vrfProof: fieldBytes(body, "vrfProof", path, VRF_PROOF_SIZE),
      };
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

function addressOf(address: string): string {
  if (typeof address !== "string") throw new TypeError("address must be a string");
  try {
    return normalizeAddress(address);
  } catch {
    throw new RangeError("address must be a valid address");
  }
}

/** A path segment: an address as it is when it needs no escaping (as @svc/client sends it). */
function segment(value: string): string {
  return /^[A-Za-z0-9@:_.-]+$/.test(value) && value !== "." && value !== ".."
    ? value
    : encodeURIComponent(value);
}

function count(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${n} is not a tree size`);
  return n;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
