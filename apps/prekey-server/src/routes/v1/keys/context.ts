import { encodeBase64 } from "@svc/canonical";
import type { PreKeyBundle, PrekeyDirectory } from "@svc/prekeys";
import type { Context } from "hono";
import { ApiError } from "../../../errors.js";
import { clientIp } from "../../../http/client-ip.js";
import { createRateLimit, type RateLimit } from "../../../http/rate-limit.js";
import type { Services } from "../../../services.js";

/** A register that created an identity, or a delete: one key-transparency leaf each (D8). */
export interface IdentityChange {
  /** Normalized address. */
  address: string;
  kind: "created" | "deleted";
  /** Ed25519 public key, 32 raw bytes. */
  identitySigningKey: Uint8Array;
  /** X25519 public key, 32 raw bytes. */
  identityDHKey: Uint8Array;
}

/** Where key transparency plugs into the keys routes; both are optional. */
export interface KeysHooks {
  /** Awaited after the change is committed and before the response is sent. */
  identityChanged?(change: IdentityChange): Promise<void>;
  /** The proof to attach as `ktProof` to the bundle 200 or 404 body; read beside the bundle. */
  bundleProof?(address: string): Promise<BundleProof>;
}

export interface BundleProof {
  /** True when the proof shows the address registered (inclusion, not tombstone or absence). */
  provesRegistered: boolean;
  json: Record<string, unknown>;
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
  const limit = (route: string, name: string, perMinute: number): RateLimit =>
    createRateLimit(services, { route, limit: name, perMinute });
  return {
    registerPerIp: limit("/v1/keys/register", "register_per_ip", rate.registerPerIp),
    registerPerAddress: limit("/v1/keys/register", "register_per_address", rate.registerPerAddress),
    replenishPerAddress: limit(
      "/v1/keys/replenish",
      "replenish_per_address",
      rate.replenishPerAddress,
    ),
    bundlePerIp: limit("/v1/keys/bundle/:address", "bundle_per_ip", rate.bundlePerIp),
    bundlePerAddress: limit(
      "/v1/keys/bundle/:address",
      "bundle_per_address",
      rate.bundlePerAddress,
    ),
  };
}

export function requesterIp(routes: KeysRoutes, c: Context): string {
  return clientIp(c, routes.services.config.trustProxy);
}

export function badSignature(): ApiError {
  return new ApiError(401, "SVC_BAD_SIGNATURE", "signature does not verify");
}

export function notRegistered(address: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(404, "SVC_NOT_REGISTERED", `${address} is not registered`, extra);
}

/** The PreKeyBundle wire shape (interface.md), base64 keys, `oneTimePreKey` only when present. */
export function bundleJson(bundle: PreKeyBundle): Record<string, unknown> {
  const json: Record<string, unknown> = {
    identitySigningKey: encodeBase64(bundle.identitySigningKey),
    identityDHKey: encodeBase64(bundle.identityDHKey),
    signedPreKey: {
      keyId: bundle.signedPreKey.keyId,
      publicKey: encodeBase64(bundle.signedPreKey.publicKey),
      signature: encodeBase64(bundle.signedPreKey.signature),
    },
  };
  if (bundle.oneTimePreKey) {
    json.oneTimePreKey = {
      keyId: bundle.oneTimePreKey.keyId,
      publicKey: encodeBase64(bundle.oneTimePreKey.publicKey),
    };
  }
  return json;
}
