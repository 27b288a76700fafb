/**
 * The account of a device address: the address without its last `:<device>` part
 * (`alice@example.org:2` -> `alice@example.org`). Undefined for an address without a device part
 * (no `:`, or nothing after the last one): such an address has no account and no device list.
 * `address` is a normalized address; so is the account it gives.
 */
export function accountOf(address: string): string | undefined {
  const colon = address.lastIndexOf(":");
  if (colon <= 0 || colon === address.length - 1) return undefined;
  return address.slice(0, colon);
}
