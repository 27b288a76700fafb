import { encodeDeviceFrame } from "@svc/protocol";
import type { KnownDeviceList } from "./state.js";

/** One envelope of a send to an account: the device, and the plaintext sealed for it. */
export interface Delivery {
  address: string;
  plaintext: Uint8Array;
  /** A copy for another device of the sender's own account. */
  copy: boolean;
}

/**
 * What sending `plaintext` to `account` (whose verified list is `list`) deposits: the message to
 * each of its devices but this one, and a sent copy (a device frame naming `account`) to each
 * other device of the own account (`own`). Sending to the own account makes copies only.
 */
export function deliveriesOf(options: {
  self: string;
  ownAccount: string | undefined;
  account: string;
  list: KnownDeviceList;
  own: KnownDeviceList | undefined;
  plaintext: Uint8Array;
  now: number;
}): Delivery[] {
  const { self, ownAccount, account, list, own, plaintext, now } = options;
  const copy = encodeDeviceFrame({ kind: "sent-copy", to: account, sentAtMs: now, plaintext });
  const others = (devices: KnownDeviceList | undefined) =>
    (devices?.devices ?? []).map((device) => device.address).filter((address) => address !== self);
  if (account === ownAccount) {
    return others(list).map((address) => ({ address, plaintext: copy, copy: true }));
  }
  return [
    ...others(list).map((address) => ({ address, plaintext, copy: false })),
    ...others(own).map((address) => ({ address, plaintext: copy, copy: true })),
  ];
}
