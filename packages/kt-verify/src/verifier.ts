import { sha256 } from "@noble/hashes/sha2.js";
import { decodeBase64, equalBytes, SerialQueue } from "@svc/canonical";
import { verifyConsistency } from "@svc/merkle";
import { optionalKey } from "./arguments.js";
import { verifyDeviceListBody } from "./device-list-proof.js";
import { KtVerifyError } from "./errors.js";
import { type FetchFunction, httpLogClient, type LogClient } from "./log-client.js";
import {
  type KtClaim,
  type KtKemClaim,
  type KtProof,
  parseKtProof,
  type VerifiedKtProof,
  verifyKtProofBody,
} from "./proof.js";
import { defaultSthVerifier, type SthSignatureVerifier, verifySthSignature } from "./signature.js";
import { logIdOf, parseSth, type SignedTreeHead, sthToJson } from "./sth.js";
import { memoryStore, type TrustedSthStore } from "./store.js";
import { fieldBytes, requireObject } from "./wire.js";
import { parseWitnessPolicy, type WitnessPolicy } from "./witness-policy.js";
import { checkpointSize, WitnessQuorum } from "./witness-quorum.js";

export const DEFAULT_MAX_STALE_MS = 24 * 3600_000;

/**
 * How far ahead of the verifier's clock an STH's timestamp may be. Clocks differ a little; an STH
 * further ahead was signed with a wrong clock or on purpose (kept as the trusted head, it would
 * never go stale), and is refused as KT_FUTURE_STH.
 */
export const MAX_FUTURE_SKEW_MS = 10 * 60_000;

export interface KtVerifierOptions {
  /** The log operator's Ed25519 public key (32 bytes), pinned out of band. */
  logPublicKey: Uint8Array;
  /** Base URL of the prekey server, for consistency proofs; or pass `client`. */
  baseUrl?: string;
  client?: LogClient;
  fetch?: FetchFunction;
  /** Where the last trusted STH is kept; default in memory. */
  store?: TrustedSthStore;
  /** STHs older than this are refused; default 24 h. More than MAX_FUTURE_SKEW_MS ahead, too. */
  maxStaleMs?: number;
  now?: () => number;
  /** Ed25519 verification of STHs and checkpoints; default WebCrypto, else tweetnacl. */
  signatureVerifier?: SthSignatureVerifier;
  /**
   * Trust an STH only with its checkpoint cosigned by `threshold` of these witnesses (see
   * {@link WitnessPolicy}); `refresh()` then reads GET /v1/kt/checkpoint, so a `client` must
   * implement `checkpoint()`. Without it, checkpoints are ignored.
   */
  witnessPolicy?: WitnessPolicy;
  /**
   * The log's VRF public key (32 bytes, `vrfPublicKey` of GET /v1/kt/log_id), pinned like
   * `logPublicKey`. With it, bundle proofs must be format 3 (protocol.md §9 "Private index"):
   * a format-2 proof is refused (KT_MALFORMED), so a client that pinned a VRF key can never be
   * served the older, address-revealing format again. Without it, format 2 only (a log from
   * before KT v2's private index).
   */
  vrfPublicKey?: Uint8Array;
}

/**
 * Verifies the `ktProof` of bundle responses and keeps the newest STH it has checked, refusing
 * any later STH that is not an append-only extension of it (a fork) or a log that shrank.
 */
export class KtVerifier {
  readonly #publicKey: Uint8Array;
  readonly #logId: Uint8Array;
  readonly #client: LogClient;
  readonly #store: TrustedSthStore;
  readonly #maxStaleMs: number;
  readonly #now: () => number;
  readonly #verifySignature: SthSignatureVerifier;
  readonly #witnesses: WitnessQuorum | undefined;
  readonly #vrfPublicKey: Uint8Array | undefined;
  readonly #queue = new SerialQueue();

  constructor(options: KtVerifierOptions) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("options must be an object");
    }
    this.#publicKey = options.logPublicKey;
    this.#logId = logIdOf(options.logPublicKey);
    if (options.client !== undefined) this.#client = options.client;
    else if (options.baseUrl !== undefined) {
      this.#client = httpLogClient(options.baseUrl, options.fetch);
    } else throw new TypeError("options.baseUrl or options.client is required");
    this.#store = options.store ?? memoryStore();
    this.#maxStaleMs = options.maxStaleMs ?? DEFAULT_MAX_STALE_MS;
    if (!Number.isSafeInteger(this.#maxStaleMs) || this.#maxStaleMs < 0) {
      throw new RangeError("options.maxStaleMs must be a non-negative integer");
    }
    this.#now = options.now ?? Date.now;
    this.#verifySignature = options.signatureVerifier ?? defaultSthVerifier;
    this.#vrfPublicKey = optionalKey(options.vrfPublicKey, "options.vrfPublicKey");
    if (options.witnessPolicy !== undefined) {
      const policy = parseWitnessPolicy(options.witnessPolicy, "options.witnessPolicy");
      if (typeof this.#client.checkpoint !== "function") {
        throw new TypeError("options.witnessPolicy needs a client with checkpoint()");
      }
      this.#witnesses = new WitnessQuorum(
        policy,
        this.#publicKey,
        this.#maxStaleMs,
        this.#verifySignature,
      );
    }
  }

  /**
   * Checks the `ktProof` of a 200 bundle body: the log holds exactly the bundle's identity keys,
   * and (format 3) its `kemPreKey` agrees with the leaf: a last-resort one is the key the leaf
   * commits to (KT_KEM_MISMATCH), and a leaf that commits one is never answered without a KEM
   * prekey (KT_KEM_MISSING). The result's `kemCommitted` says whether the leaf commits one.
   */
  async verifyBundle(address: string, body: unknown): Promise<VerifiedKtProof> {
    const object = requireObject(body, "bundle");
    const kemPreKey = bundleKemClaim(object.kemPreKey);
    const claim: KtClaim = {
      type: "inclusion",
      identitySigningKey: bundleKey(object.identitySigningKey, "identitySigningKey"),
      identityDHKey: bundleKey(object.identityDHKey, "identityDHKey"),
      ...(kemPreKey === undefined ? {} : { kemPreKey }),
    };
    return this.verifyProof(address, requireProof(object), claim);
  }

  /** Checks the `ktProof` of a bundle 404 body: the address was deleted, or never registered. */
  async verifyNotFound(address: string, body: unknown): Promise<VerifiedKtProof> {
    const json = requireProof(requireObject(body, "bundle 404"));
    const proof = parseKtProof(json);
    const claim: KtClaim = { type: proof.body.type === "absence" ? "absence" : "tombstone" };
    return this.#verifyProof(address, proof, claim, checkpointMember(json));
  }

  /**
   * Checks the `ktProof` of a device list answer: the log's latest version of `account`'s list
   * is the one whose hash is `listHash` (the caller hashes the served list), or, with `listHash`
   * undefined, the account never had one (a 404). Then the STH, as for bundles. Device lists
   * are proved in format 3 only: a verifier without the log's VRF key refuses (KT_MALFORMED).
   */
  async verifyDeviceList(
    account: string,
    listHash: Uint8Array | undefined,
    ktProof: unknown,
  ): Promise<VerifiedKtProof> {
    if (ktProof === undefined) {
      throw new KtVerifyError("KT_PROOF_MISSING", "the device list answer carries no ktProof");
    }
    if (this.#vrfPublicKey === undefined) {
      throw new KtVerifyError(
        "KT_MALFORMED",
        "device lists are proved in format 3, under the log's VRF key, which is not pinned",
      );
    }
    const proof = parseKtProof(ktProof);
    const verified = verifyDeviceListBody(account, proof, listHash, this.#vrfPublicKey);
    await this.observeSth(proof.sth, checkpointMember(ktProof));
    return verified;
  }

  /**
   * Checks one proof (JSON or parsed) for `claim`, then its STH (and, with a witness policy,
   * its `checkpoint`) against the trusted one.
   */
  async verifyProof(
    address: string,
    proof: KtProof | unknown,
    claim: KtClaim,
  ): Promise<VerifiedKtProof> {
    if (isParsed(proof)) return this.#verifyProof(address, proof, claim, proof.checkpoint);
    return this.#verifyProof(address, parseKtProof(proof), claim, checkpointMember(proof));
  }

  async #verifyProof(
    address: string,
    proof: KtProof,
    claim: KtClaim,
    checkpoint: unknown,
  ): Promise<VerifiedKtProof> {
    const verified = verifyKtProofBody(address, proof, claim, this.#vrfPublicKey);
    await this.observeSth(proof.sth, checkpoint);
    return verified;
  }

  /**
   * Checks an STH (signature, log, freshness; with a witness policy, its `checkpoint` note and
   * the witnesses' cosignatures) and reconciles it with the trusted one: a newer one must extend
   * it (consistency proof) and becomes trusted; an older one must be a prefix.
   */
  observeSth(sth: SignedTreeHead | unknown, checkpoint?: unknown): Promise<SignedTreeHead> {
    return this.#serialized(async () => {
      const head = isSignedTreeHead(sth) ? sth : parseSth(sth);
      await this.#checkHead(head);
      await this.#witnesses?.check(head, checkpoint, this.#now());
      await this.#reconcile(head);
      return head;
    });
  }

  /**
   * Fetches the latest STH and observes it; a latest size below the trusted one is a shrink.
   * With a witness policy, the latest checkpoint (GET /v1/kt/checkpoint) and the STH of its size.
   */
  async refresh(): Promise<SignedTreeHead> {
    let checkpoint: string | undefined;
    let latest: SignedTreeHead;
    if (this.#witnesses !== undefined) {
      checkpoint = await (this.#client.checkpoint as () => Promise<string>)();
      latest = await this.#client.sth(checkpointSize(checkpoint));
    } else {
      latest = await this.#client.sth();
    }
    const trusted = await this.trustedSth();
    if (trusted !== undefined && latest.treeSize < trusted.treeSize) {
      await this.#checkHead(latest);
      throw shrank(latest.treeSize, trusted.treeSize);
    }
    return this.observeSth(latest, checkpoint);
  }

  /** The VRF key bundle proofs are checked under (format 3), or undefined (format 2). */
  get vrfPublicKey(): Uint8Array | undefined {
    return this.#vrfPublicKey?.slice();
  }

  /** The newest STH this verifier has checked, if any. */
  async trustedSth(): Promise<SignedTreeHead | undefined> {
    const stored = await this.#store.load();
    return stored === undefined ? undefined : parseSth(stored, "stored sth");
  }

  async #checkHead(head: SignedTreeHead): Promise<void> {
    if (!equalBytes(head.logId, this.#logId)) {
      throw new KtVerifyError("KT_WRONG_LOG", "the STH is from another log than the pinned key's");
    }
    if (!(await verifySthSignature(head, this.#publicKey, this.#verifySignature))) {
      throw new KtVerifyError(
        "KT_BAD_SIGNATURE",
        `STH at size ${head.treeSize} is not signed by the log`,
      );
    }
    const age = this.#now() - head.timestampMs;
    if (age > this.#maxStaleMs) {
      throw new KtVerifyError("KT_STALE_STH", `STH at size ${head.treeSize} is ${age} ms old`);
    }
    if (-age > MAX_FUTURE_SKEW_MS) {
      throw new KtVerifyError(
        "KT_FUTURE_STH",
        `STH at size ${head.treeSize} is timestamped ${-age} ms ahead of this clock (at most ${MAX_FUTURE_SKEW_MS} allowed)`,
      );
    }
  }

  async #reconcile(head: SignedTreeHead): Promise<void> {
    const trusted = await this.trustedSth();
    if (trusted === undefined) return this.#store.save(sthToJson(head));
    if (head.treeSize === trusted.treeSize) {
      if (
        !equalBytes(head.rootHash, trusted.rootHash) ||
        !equalBytes(head.indexRoot, trusted.indexRoot)
      ) {
        throw fork(`two different STHs at size ${head.treeSize}`);
      }
      if (head.timestampMs > trusted.timestampMs) await this.#store.save(sthToJson(head));
      return;
    }
    if (head.treeSize > trusted.treeSize) {
      await this.#checkConsistency(trusted, head);
      return this.#store.save(sthToJson(head));
    }
    try {
      await this.#checkConsistency(head, trusted);
    } catch (error) {
      if (error instanceof KtVerifyError && error.code === "KT_FETCH_FAILED") {
        const latest = await this.#client.sth();
        if (latest.treeSize < trusted.treeSize) {
          await this.#checkHead(latest);
          throw shrank(latest.treeSize, trusted.treeSize);
        }
      }
      throw error;
    }
  }

  async #checkConsistency(older: SignedTreeHead, newer: SignedTreeHead): Promise<void> {
    const proof =
      older.treeSize === 0 ? [] : await this.#client.consistency(older.treeSize, newer.treeSize);
    const ok = verifyConsistency(
      older.treeSize,
      newer.treeSize,
      older.rootHash,
      newer.rootHash,
      proof,
    );
    if (!ok) {
      throw fork(
        `the log at size ${newer.treeSize} does not extend its STH at size ${older.treeSize}`,
      );
    }
  }

  #serialized<T>(work: () => Promise<T>): Promise<T> {
    return this.#queue.run(work);
  }
}

/** The `checkpoint` member of a `ktProof` object, whatever it holds. */
function checkpointMember(json: unknown): unknown {
  return typeof json === "object" && json !== null
    ? (json as { checkpoint?: unknown }).checkpoint
    : undefined;
}

function requireProof(body: Record<string, unknown>): unknown {
  if (body.ktProof === undefined) {
    throw new KtVerifyError("KT_PROOF_MISSING", "the response carries no ktProof");
  }
  return body.ktProof;
}

function bundleKey(value: unknown, name: string): Uint8Array {
  if (typeof value === "string") {
    try {
      return decodeBase64(value, 32);
    } catch {
      // reported below
    }
  }
  throw new KtVerifyError("KT_MALFORMED", `bundle.${name} must be base64 of 32 bytes`);
}

/** A bundle's `kemPreKey` member as the log sees it: absent, one-time, or a last-resort key's hash. */
function bundleKemClaim(value: unknown): KtKemClaim | undefined {
  if (value === undefined) return undefined;
  const entry = requireObject(value, "bundle.kemPreKey");
  if (typeof entry.lastResort !== "boolean") {
    throw new KtVerifyError("KT_MALFORMED", "bundle.kemPreKey.lastResort must be a boolean");
  }
  if (!entry.lastResort) return { lastResort: false };
  return { lastResort: true, keyHash: sha256(fieldBytes(entry, "publicKey", "bundle.kemPreKey")) };
}

function isParsed(proof: unknown): proof is KtProof {
  return (
    typeof proof === "object" &&
    proof !== null &&
    isSignedTreeHead((proof as KtProof).sth) &&
    typeof (proof as KtProof).body === "object"
  );
}

function isSignedTreeHead(value: unknown): value is SignedTreeHead {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as SignedTreeHead).rootHash instanceof Uint8Array
  );
}

function fork(message: string): KtVerifyError {
  return new KtVerifyError("KT_FORK", message);
}

function shrank(size: number, trusted: number): KtVerifyError {
  return new KtVerifyError(
    "KT_LOG_SHRANK",
    `the log's latest size ${size} is below the trusted size ${trusted}`,
  );
}
