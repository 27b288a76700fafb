import { equalBytes } from "@svc/canonical";
import {
  checkDeviceListStep,
  type DeviceList,
  DeviceListError,
  type DeviceListWire,
  deviceListFromJson,
  deviceListHash,
  deviceListToJson,
} from "@svc/protocol";
import { hookedFetch } from "./wire.js";

/**
 * A stand-in for the server's device-list routes, in front of a real server: lists kept in
 * memory, writes checked with the protocol's own rules (not the directory's keys), answers
 * without ktProof as a server without KT gives them. `lists` is open to a test that plays a
 * lying server (a ghost device, a rewritten version).
 */
export function deviceDirectory(): {
  fetch: typeof fetch;
  lists: Map<string, DeviceList[]>;
  /** A ktProof to serve with each latest list, when a test sets one. */
  ktProof: { value: unknown };
  /** Runs before each write is judged: another writer getting there first. */
  beforeWrite: { run: (account: string) => Promise<void> | void };
} {
  const beforeWrite = { run: (_account: string): Promise<void> | void => undefined };
  const lists = new Map<string, DeviceList[]>();
  const ktProof: { value: unknown } = { value: undefined };
  const answer = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  const fetch = hookedFetch(async ({ method, url, body }, forward) => {
    const match = /^\/v1\/devices\/([^/]+)(?:\/versions\/(\d+))?$/.exec(url.pathname);
    if (match === null) return forward();
    const account = decodeURIComponent(match[1] as string);
    const versions = lists.get(account) ?? [];
    const latest = versions.at(-1);
    if (method === "GET") {
      const list = match[2] === undefined ? latest : versions[Number(match[2]) - 1];
      if (list === undefined) {
        return answer(404, { name: "SvcError", code: "SVC_NOT_FOUND", message: "no device list" });
      }
      const proof = match[2] === undefined ? ktProof.value : undefined;
      return answer(200, { ...deviceListToJson(list), ...(proof ? { ktProof: proof } : {}) });
    }
    await beforeWrite.run(account);
    const current = lists.get(account) ?? [];
    const last = current.at(-1);
    let list: DeviceList;
    try {
      list = deviceListFromJson(JSON.parse(body ?? "") as DeviceListWire);
      if (list.account !== account) throw new DeviceListError("DEVICE_LIST_MALFORMED", "account");
      if (
        last !== undefined &&
        (list.version !== last.version + 1 || !equalBytes(list.previousHash, deviceListHash(last)))
      ) {
        return answer(409, {
          name: "SvcError",
          code: "SVC_DEVICE_LIST_CONFLICT",
          message: "another version is current",
          currentVersion: last.version,
        });
      }
      checkDeviceListStep(last, list);
    } catch (error) {
      if (!(error instanceof DeviceListError)) throw error;
      return answer(400, {
        name: "SvcError",
        code: "SVC_INVALID_DEVICE_LIST",
        message: error.message,
      });
    }
    lists.set(account, [...current, list]);
    return answer(200, { ok: true, version: list.version });
  });
  return { fetch, lists, ktProof, beforeWrite };
}
