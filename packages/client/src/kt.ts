import { decodeBase64, encodeBase64 } from "@svc/canonical";
import {
  KtVerifier,
  KtVerifyError,
  logIdOf,
  type TrustedSthStore,
  type WitnessPolicy,
} from "@svc/kt-verify";
import { SvcError } from "@svc/protocol";
import type { ApiAnswer, SvcApi } from "./api.js";
import { pqDowngrade } from "./downgrade.js";
import { ClientError } from "./errors.js";
import type { KtPin } from "./state.js";

export type KtMode = "auto" | "require" | "off";

/** Where the pinned log lives: in the StoredState once there is one, in memory before. */
export interface KtPinAccess {
  get(): KtPin | null;
  set(pin: KtPin): Promise<void>;
}

export interface KtCheckOptions {
  mode: KtMode;
  api: SvcApi;
  server: string;
  fetch: typeof fetch;
  now: () => number;
  pin: KtPinAccess;
  /** Bundles are trusted only under checkpoints these witnesses cosigned (checked already). */
  witnessPolicy?: WitnessPolicy | undefined;
}

/** What a verified bundle proves. */
export interface KtEvidence {
  treeSize: number;
  leafIndex: number;
}

/**
 * How long to wait before asking for a bundle once more when its checkpoint lacks cosignatures
 * for a witness policy: a log answers a new tree head before its witnesses have all cosigned it,
 * and the server reads the cosignatures it has collected again at most once a second.
 */
export const WITNESS_RETRY_MS = 1_100;

/**
 * Key transparency for bundles. The log key is pinned from GET /v1/kt/log_id on first use and
 * kept in the store with the last verified STH. Once pinned, a server that stops proving (no
 * ktProof, or KT switched off) is refused even with kt "auto": KT cannot be downgraded away.
 * The log's VRF key (a private index, format 3) is pinned with it when log_id names one, or, for
 * a pin made without one, when a bundle first comes with a format-3 proof; once pinned, format-2
 * proofs are refused (the verifier's rule), so the private index cannot be downgraded away either.
 */
export class KtCheck {
  readonly #options: KtCheckOptions;
  #verifier: KtVerifier | undefined;
  /** The server answered log_id with 404: it has no KT (asked again by the next client). */
  #absent = false;

  constructor(options: KtCheckOptions) {
    this.#options = options;
  }

  /**
   * Fetches `address`'s bundle and checks its ktProof (see {@link verifyBundle}). With a witness
   * policy, a bundle whose checkpoint has too few cosignatures is asked for once more, after
   * {@link WITNESS_RETRY_MS}: the witnesses may not have cosigned that tree head yet.
   */
  async fetchBundle(
    address: string,
    options: { force?: boolean } = {},
  ): Promise<{ bundle: ApiAnswer<"keysBundle">; evidence: KtEvidence | undefined }> {
    const bundle = await this.#options.api.keysBundle(address);
    try {
      return { bundle, evidence: await this.verifyBundle(address, bundle, options) };
    } catch (error) {
      if (!awaitingCosignatures(error, bundle)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, WITNESS_RETRY_MS));
    const again = await this.#options.api.keysBundle(address);
    return { bundle: again, evidence: await this.verifyBundle(address, again, options) };
  }

  /**
   * Checks a 200 bundle answer's ktProof for `address`: undefined when KT is off ("off", or
   * "auto" on a server without KT and nothing pinned); ClientError KT_VERIFICATION_FAILED when
   * the proof does not show exactly the bundle's keys, or (witness policy) its tree head lacks
   * the witnesses' cosignatures; PQ_DOWNGRADE when the proof commits a last-resort KEM key and
   * the bundle carries no KEM prekey.
   */
  async verifyBundle(
    address: string,
    bundle: ApiAnswer<"keysBundle">,
    options: { force?: boolean } = {},
  ): Promise<KtEvidence | undefined> {
    let verifier = await this.verifier(options.force === true);
    if (verifier === undefined) return undefined;
    if (verifier.vrfPublicKey === undefined && carriesVrfProof(bundle)) {
      verifier = await this.#pinVrfKey(verifier);
    }
    try {
      const verified = await verifier.verifyBundle(address, bundle);
      return { treeSize: verified.sth.treeSize, leafIndex: verified.leafIndex ?? 0 };
    } catch (error) {
      if (!(error instanceof KtVerifyError)) throw error;
      if (error.code === "KT_KEM_MISSING") {
        throw pqDowngrade(address, "its key-transparency leaf commits one", error);
      }
      throw new ClientError(
        "KT_VERIFICATION_FAILED",
        `the bundle of ${address} fails key transparency (${error.code}): ${error.message}`,
        { cause: error },
      );
    }
  }

  /**
   * Checks the ktProof of a device-list answer (`listHash` of the list served; undefined for a
   * 404's absence proof) as bundles are checked: undefined when KT is off, else the proof must be
   * there and verify. A failure is the KtVerifyError, for the caller to refuse the list with.
   */
  async verifyDeviceList(
    account: string,
    listHash: Uint8Array | undefined,
    ktProof: unknown,
  ): Promise<KtEvidence | undefined> {
    let verifier = await this.verifier();
    if (verifier === undefined) return undefined;
    if (verifier.vrfPublicKey === undefined) verifier = await this.#pinVrfKey(verifier);
    const verified = await verifier.verifyDeviceList(account, listHash, ktProof);
    return { treeSize: verified.sth.treeSize, leafIndex: verified.leafIndex ?? 0 };
  }

  /** The verifier, pinning the log first if needed; undefined when bundles go unchecked. */
  async verifier(force = false): Promise<KtVerifier | undefined> {
    if (this.#verifier) return this.#verifier;
    const { mode, pin } = this.#options;
    let pinned = pin.get();
    if (pinned === null) {
      if (mode === "off" && !force) return undefined;
      const logId = await this.#logId(force || mode === "require");
      if (logId === undefined) return undefined;
      pinned = {
        logPublicKey: encodeBase64(logId.publicKey),
        ...(logId.vrfPublicKey ? { vrfPublicKey: encodeBase64(logId.vrfPublicKey) } : {}),
        trustedSth: null,
      };
      await pin.set(pinned);
    } else if (mode === "off" && !force) {
      return undefined;
    }
    this.#verifier = this.#verifierFor(pinned);
    return this.#verifier;
  }

  #verifierFor(pinned: KtPin): KtVerifier {
    return new KtVerifier({
      logPublicKey: decodeBase64(pinned.logPublicKey, 32),
      ...(pinned.vrfPublicKey ? { vrfPublicKey: decodeBase64(pinned.vrfPublicKey, 32) } : {}),
      baseUrl: this.#options.server,
      fetch: (url) => this.#options.fetch(url),
      store: this.#trustedSthStore(),
      now: this.#options.now,
      ...(this.#options.witnessPolicy ? { witnessPolicy: this.#options.witnessPolicy } : {}),
    });
  }

  /**
   * A pin without a VRF key met a format-3 proof: reads log_id again and, if it names the pinned
   * log key and a VRF key, pins that VRF key and verifies with it from now on. Another log key is
   * KT_VERIFICATION_FAILED; no VRF key leaves the verifier as it is (the proof is then refused).
   */
  async #pinVrfKey(current: KtVerifier): Promise<KtVerifier> {
    const { pin } = this.#options;
    const logId = await this.#logId(true);
    // Read after the fetch: a verification meanwhile may have moved the trusted STH on.
    const pinned = pin.get();
    if (pinned === null || logId === undefined) return current;
    if (encodeBase64(logId.publicKey) !== pinned.logPublicKey) {
      throw new ClientError(
        "KT_VERIFICATION_FAILED",
        "GET /v1/kt/log_id names another log key than the pinned one",
      );
    }
    if (logId.vrfPublicKey === undefined) return current;
    const next: KtPin = { ...pinned, vrfPublicKey: encodeBase64(logId.vrfPublicKey) };
    await pin.set(next);
    this.#verifier = this.#verifierFor(next);
    return this.#verifier;
  }

  /** GET /v1/kt/log_id, checked: undefined when the server has no KT and it is not required. */
  async #logId(
    required: boolean,
  ): Promise<{ publicKey: Uint8Array; vrfPublicKey?: Uint8Array } | undefined> {
    if (this.#absent && !required) return undefined;
    try {
      const { logId, publicKey, vrfPublicKey } = await this.#options.api.ktLogId();
      const key = decodeKeyOrNull(publicKey);
      if (key === null || encodeBase64(logIdOf(key)) !== logId) {
        throw new ClientError(
          "BAD_RESPONSE",
          "GET /v1/kt/log_id: logId is not SHA-256 of publicKey",
        );
      }
      if (vrfPublicKey === undefined) return { publicKey: key };
      const vrfKey = decodeKeyOrNull(vrfPublicKey);
      if (vrfKey === null) {
        throw new ClientError("BAD_RESPONSE", "GET /v1/kt/log_id: vrfPublicKey is not 32 bytes");
      }
      return { publicKey: key, vrfPublicKey: vrfKey };
    } catch (error) {
      if (!(error instanceof SvcError) || error.status !== 404) throw error;
      this.#absent = true;
      if (!required) return undefined;
      throw new ClientError(
        "KT_UNAVAILABLE",
        `the server at ${this.#options.server} has no key-transparency log (GET /v1/kt/log_id answered 404): its keys cannot be verified`,
        { cause: error },
      );
    }
  }

  #trustedSthStore(): TrustedSthStore {
    const { pin } = this.#options;
    return {
      load: async () => pin.get()?.trustedSth ?? undefined,
      save: async (sth) => {
        const current = pin.get();
        if (current) await pin.set({ ...current, trustedSth: sth });
      },
    };
  }
}

/** A quorum missed by a checkpoint that is there: its cosignatures may be on their way. */
function awaitingCosignatures(error: unknown, bundle: ApiAnswer<"keysBundle">): boolean {
  const cause = error instanceof ClientError ? error.cause : undefined;
  return (
    cause instanceof KtVerifyError &&
    cause.code === "KT_WITNESS_QUORUM" &&
    typeof (bundle.ktProof as { checkpoint?: unknown } | undefined)?.checkpoint === "string"
  );
}

/** Whether a bundle answer's ktProof is format 3 (its body carries a VRF proof). */
function carriesVrfProof(bundle: ApiAnswer<"keysBundle">): boolean {
  const body = (bundle.ktProof as { body?: { vrfProof?: unknown } } | undefined)?.body;
  return typeof body?.vrfProof === "string";
}

function decodeKeyOrNull(text: string): Uint8Array | null {
  try {
    return decodeBase64(text, 32);
  } catch {
    return null;
  }
}
