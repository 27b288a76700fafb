import { DeviceListJson, type DeviceListWire } from "@svc/protocol";
import * as v from "valibot";
import { segment } from "./api.js";
import { type HttpOptions, request } from "./http.js";

/** GET /v1/devices/{account}: the account's latest list and the KT proof of it. */
const DeviceListAnswer = v.object({ ...DeviceListJson.entries, ktProof: v.optional(v.unknown()) });
const DeviceListWriteAnswer = v.object({
  ok: v.literal(true),
  version: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
});

export type DeviceListAnswer = v.InferOutput<typeof DeviceListAnswer>;

/**
 * The device-list routes. A 404 (the account never had a list) is SvcError SVC_NOT_FOUND with
 * `extra.ktProof`; a write that lost a race is SvcError SVC_DEVICE_LIST_CONFLICT with
 * `extra.currentVersion`.
 */
export interface DeviceApi {
  devicesGet(account: string): Promise<DeviceListAnswer>;
  devicesVersion(account: string, version: number): Promise<DeviceListWire>;
  /** The list's own signature authenticates the write: there is no signed body around it. */
  devicesWrite(account: string, list: DeviceListWire): Promise<{ ok: true; version: number }>;
}

export function createDeviceApi(http: HttpOptions): DeviceApi {
  const path = (account: string) => `/v1/devices/${segment(account)}`;
  return {
    devicesGet: (account) =>
      request(http, { method: "GET", path: path(account), response: DeviceListAnswer }),
    devicesVersion: (account, version) =>
      request(http, {
        method: "GET",
        path: `${path(account)}/versions/${version}`,
        response: DeviceListJson,
      }),
    devicesWrite: (account, list) =>
      request(http, {
        method: "POST",
        path: path(account),
        body: async () => list,
        response: DeviceListWriteAnswer,
      }),
  };
}
