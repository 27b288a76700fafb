import type { DeviceLists } from "@svc/devices";
import type { PrekeyDirectory } from "@svc/prekeys";
import type { Services } from "../../../services.js";
import type { KtProofAnswer } from "../keys/index.js";

/** Where key transparency plugs into the device list routes; both are optional. */
export interface DevicesHooks {
  /**
   * Awaited after a version is stored and before the write answers: its log leaf (none when the
   * log already shows that version or a later one).
   */
  listWritten?(account: string, written: { version: number; listHash: Uint8Array }): Promise<void>;
  /**
   * The `ktProof` member of a read: a proof that version `listHash` is the account's latest, or
   * (undefined) that it never had a list; undefined when the log shows something else yet.
   */
  listProof?(account: string, listHash: Uint8Array | undefined): Promise<KtProofAnswer | undefined>;
}

export interface DevicesRoutes {
  services: Services;
  lists: DeviceLists;
  /** Where a listed device's registered identity signing key is read. */
  identities: Pick<PrekeyDirectory, "findIdentity">;
  hooks: DevicesHooks;
  limits: ReturnType<typeof createDevicesRateLimits>;
}

/**
 * Per-IP limits, per instance: reads take the bundle fetches' setting, writes the registers'
 * (a list write costs about what a register does), each in a bucket of its own.
 */
export function createDevicesRateLimits(services: Services) {
  const rate = services.config.rateLimit;
  return {
    readPerIp: services.rateLimit("/v1/devices/:account", "devices_read_per_ip", rate.bundlePerIp),
    writePerIp: services.rateLimit(
      "/v1/devices/:account",
      "devices_write_per_ip",
      rate.registerPerIp,
    ),
  };
}
