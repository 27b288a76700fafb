import { isValidAddress, normalizeAddress } from "@svc/canonical";
import type { DeviceLists } from "@svc/devices";
import { accountOf, badRequest, type DeviceListVersion, SvcError } from "@svc/protocol";

/**
 * Refuses a batch, before anything of it is stored, when a device list version it names is not
 * the account's latest (or the account has none), or when it deposits to an address of a named
 * account that the latest list does not hold: 409 SVC_DEVICE_LIST_CHANGED with every named
 * account's latest version, so that the sender re-reads only the lists that changed.
 */
export async function checkDeviceLists(
  lists: DeviceLists,
  named: DeviceListVersion[],
  addresses: string[],
): Promise<void> {
  const versions = new Map<string, number>();
  for (const entry of named) {
    const account = normalizeAddress(entry.account);
    if (versions.has(account)) throw badRequest("deviceLists names each account once");
    versions.set(account, entry.version);
  }
  const latest = await lists.latestOf([...versions.keys()]);
  const stale = [...versions].filter(
    ([account, version]) => latest.get(account)?.list.version !== version,
  );
  // An address that does not parse is its own item's refusal, as without deviceLists.
  const unlisted = addresses
    .filter(isValidAddress)
    .map(normalizeAddress)
    .filter((address) => {
      const account = accountOf(address);
      const list = account === undefined ? undefined : latest.get(account);
      return (
        account !== undefined &&
        versions.has(account) &&
        !list?.list.devices.some((device) => device.address === address)
      );
    });
  if (stale.length === 0 && unlisted.length === 0) return;
  const why =
    stale.length > 0
      ? `a device list this batch names is not the latest: ${stale.map(([a]) => a).join(", ")}`
      : `the latest device list does not hold ${unlisted.join(", ")}`;
  throw new SvcError("SVC_DEVICE_LIST_CHANGED", why, {
    extra: {
      deviceLists: [...versions.keys()].map((account) => ({
        account,
        version: latest.get(account)?.list.version ?? null,
      })),
    },
  });
}
