import { clientIp } from "@svc/http";
import type { PreKeyBundle, PrekeyDirectory } from "@svc/prekeys";
import { SvcError } from "@svc/protocol";
import type { Context } from "hono";
import type { Services } from "../../../services.js";

/**
 * A register that created an identity, a register or replenish that set or replaced its
 * last-resort KEM key ("updated"), or a delete: one key-transparency leaf each (D8).
 */
export interface IdentityChange {
  /** Normalized address. */
  address: string;
  kind: "created" | "updated" | "deleted";
  /** Ed25519 public key, 32 raw bytes. */
  identitySigningKey: Uint8Array;
  /** X25519 public key, 32 raw bytes. */
  identityDHKey: Uint8Array;
  /** SHA-256 of the last-resort ML-KEM-1024 public key, when the identity has one. */
  kemKeyHash?: Uint8Array;
}

/** What a bundle's proof must show: the identity keys and the last-resort KEM key's hash. */
export type BundleIdentity = Pick<PreKeyBundle, "identitySigningKey" | "identityDHKey"> & {
  kemKeyHash?: Uint8Array;
};

/** Where key transparency plugs into the keys routes; both are optional. */
export interface KeysHooks {
  /** Awaited after the change is committed and before the response is sent. */
  identityChanged?(change: IdentityChange): Promise<void>;
  /**
   * The `ktProof` member of the bundle 200 or 404 body: a proof showing the address with the
   * answer's identity keys, or unregistered when undefined; undefined when none shows that yet.
   */
  bundleProof?(
    address: string,
    answer: BundleIdentity | undefined,
  ): Promise<KtProofAnswer | undefined>;
}

/** A `ktProof` member, with its JSON text in UTF-8. */
export interface KtProofAnswer {
  json: Record<string, unknown>;
  bytes: Uint8Array;
}

export interface KeysRoutes {
  services: Services;
  directory: PrekeyDirectory;
  hooks: KeysHooks;
  limits: ReturnType<typeof createKeysRateLimits>;
}

/** The D5 limits, per server instance. */
export function createKeysRateLimits(services: Services) {
  const rate = services.config.rateLimit;
  return {
    registerPerIp: services.rateLimit("/v1/keys/register", "register_per_ip", rate.registerPerIp),
    registerPerAddress: services.rateLimit(
      "/v1/keys/register",
      "register_per_address",
      rate.registerPerAddress,
    ),
    replenishPerAddress: services.rateLimit(
      "/v1/keys/replenish",
      "replenish_per_address",
      rate.replenishPerAddress,
    ),
    bundlePerIp: services.rateLimit("/v1/keys/bundle/:address", "bundle_per_ip", rate.bundlePerIp),
    bundlePerAddress: services.rateLimit(
      "/v1/keys/bundle/:address",
      "bundle_per_address",
      rate.bundlePerAddress,
    ),
  };
}

export function requesterIp(routes: KeysRoutes, c: Context): string {
  return clientIp(c, routes.services.config.trustProxy);
}

export function badSignature(): SvcError {
  return new SvcError("SVC_BAD_SIGNATURE", "signature does not verify");
}

export function notRegistered(address: string, extra: Record<string, unknown> = {}): SvcError {
  return new SvcError("SVC_NOT_REGISTERED", `${address} is not registered`, { extra });
}
