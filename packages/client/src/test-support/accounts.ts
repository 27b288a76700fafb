import { decodeBase64 } from "@svc/canonical";
import {
  type DeviceList,
  deviceListHash,
  deviceListToJson,
  firstDeviceList,
  signDeviceList,
} from "@svc/protocol";
import type { ClientOptions } from "../index.js";
import { parseState } from "../state.js";
import { member, type TestClient } from "./clients.js";
import type { lyingDirectory } from "./devices.js";

/** The signing seed and public key a client keeps in its store. */
export async function keysOf(client: TestClient): Promise<{ seed: Uint8Array; key: Uint8Array }> {
  const state = parseState(await client.store.load());
  return {
    seed: decodeBase64(state.identity.signingSeed, 32),
    key: decodeBase64(state.identity.identitySigningKey, 32),
  };
}

/** The version after `previous` with `devices`, signed by `signer`. */
export async function nextList(
  previous: DeviceList,
  devices: Array<{ address: string; client: TestClient }>,
  signer: { address: string; client: TestClient },
): Promise<DeviceList> {
  const entries = await Promise.all(
    devices.map(async ({ address, client }) => ({
      address,
      identitySigningKey: (await keysOf(client)).key,
    })),
  );
  return signDeviceList(
    {
      account: previous.account,
      version: previous.version + 1,
      previousHash: deviceListHash(previous),
      devices: entries.sort((a, b) => (a.address < b.address ? -1 : 1)),
      signer: signer.address,
    },
    (await keysOf(signer.client)).seed,
  );
}

/** Registered devices of one account, all listed (version 1 by the first, then all at once). */
export async function account(
  server: string,
  directory: ReturnType<typeof lyingDirectory>,
  addresses: string[],
  fetch: typeof globalThis.fetch = directory.fetch,
  options: Partial<ClientOptions> = {},
): Promise<TestClient[]> {
  const clients = await Promise.all(
    addresses.map((address) => member(server, address, { fetch, ...options })),
  );
  const [first] = addresses as [string];
  const one = firstDeviceList(
    { address: first, identitySigningKey: (await keysOf(clients[0] as TestClient)).key },
    (await keysOf(clients[0] as TestClient)).seed,
  );
  const versions = [one];
  if (addresses.length > 1) {
    versions.push(
      await nextList(
        one,
        addresses.map((address, i) => ({ address, client: clients[i] as TestClient })),
        { address: first, client: clients[0] as TestClient },
      ),
    );
  }
  for (const list of versions) {
    await (clients[0] as TestClient).api.devicesWrite(list.account, deviceListToJson(list));
  }
  return clients;
}
