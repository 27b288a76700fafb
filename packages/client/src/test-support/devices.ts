import {
  type DeviceList,
  type DeviceListWire,
  deviceListFromJson,
  deviceListToJson,
} from "@svc/protocol";
import { hookedFetch } from "./wire.js";

/**
 * A fetch in front of a real server's device-list routes that can lie about them. Writes go to the
 * server (after `beforeWrite`, where another writer may get there first), and each accepted
 * version is kept in `written`. Reads come from the server unless a test puts versions for an
 * account in `served`: then the latest of those is answered, with `ktProof.value` as its proof
 * (none when unset), as a server would that added a ghost device, rewrote a version or hid one.
 */
export function lyingDirectory(): {
  fetch: typeof globalThis.fetch;
  written: Map<string, DeviceList[]>;
  served: Map<string, DeviceList[]>;
  ktProof: { value: unknown };
  beforeWrite: { run: (account: string) => Promise<void> | void };
} {
  const written = new Map<string, DeviceList[]>();
  const served = new Map<string, DeviceList[]>();
  const ktProof: { value: unknown } = { value: undefined };
  const beforeWrite = { run: (_account: string): Promise<void> | void => undefined };
  const answer = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  const lying = hookedFetch(async ({ method, url, body }, forward) => {
    const match = /^\/v1\/devices\/([^/]+)(?:\/versions\/(\d+))?$/.exec(url.pathname);
    if (match === null) return forward();
    const account = decodeURIComponent(match[1] as string);
    if (method === "POST") {
      await beforeWrite.run(account);
      const response = await forward();
      if (response.status === 200) {
        const list = deviceListFromJson(JSON.parse(body ?? "") as DeviceListWire);
        written.set(account, [...(written.get(account) ?? []), list]);
      }
      return response;
    }
    const versions = served.get(account);
    if (versions === undefined) return forward();
    const list = match[2] === undefined ? versions.at(-1) : versions[Number(match[2]) - 1];
    if (list === undefined) {
      return answer(404, { name: "SvcError", code: "SVC_NO_DEVICE_LIST", message: "no list" });
    }
    const proof = match[2] === undefined ? ktProof.value : undefined;
    return answer(200, { ...deviceListToJson(list), ...(proof ? { ktProof: proof } : {}) });
  });
  return { fetch: lying, written, served, ktProof, beforeWrite };
}
