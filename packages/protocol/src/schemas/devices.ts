import * as v from "valibot";
import { base64Text, count, text } from "./fields.js";

/** One device of a list on the wire. */
export const DeviceEntryJson = v.strictObject({
  address: text("address"),
  identitySigningKey: base64Text("identitySigningKey"),
});

/**
 * One version of an account's device list as the wire carries it: the body of a write, and the
 * answer of a read (which adds `ktProof`). Bytes are base64; the rules are checkDeviceListStep's.
 */
export const DeviceListJson = v.strictObject({
  account: text("account"),
  version: v.pipe(count("version"), v.minValue(1, "version must be at least 1")),
  previousHash: base64Text("previousHash"),
  devices: v.array(DeviceEntryJson, "devices must be an array"),
  signer: text("signer"),
  signature: base64Text("signature"),
});

export type DeviceListWire = v.InferOutput<typeof DeviceListJson>;
