import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
import type { Closer } from "./server.js";

/**
 * A server that relays everything to `upstream` but the device-list routes, which it answers
 * itself from `lists` (checked with the protocol's rules, without ktProof, as a server without
 * KT answers): the CLI's device commands against a stand-in that a test can also make lie.
 */
export async function startDeviceListProxy(
  upstream: string,
  closers: Closer[],
): Promise<{ url: string; lists: Map<string, DeviceList[]> }> {
  const lists = new Map<string, DeviceList[]>();
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const answer = (status: number, json: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    const match = /^\/v1\/devices\/([^/?]+)(?:\/versions\/(\d+))?$/.exec(req.url ?? "");
    if (match === null) {
      const headers: Record<string, string> = {};
      if (req.headers["content-type"]) headers["content-type"] = req.headers["content-type"];
      const relayed = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body });
      res
        .writeHead(relayed.status, { "content-type": "application/json" })
        .end(await relayed.text());
      return;
    }
    const account = decodeURIComponent(match[1] as string);
    const versions = lists.get(account) ?? [];
    const latest = versions.at(-1);
    if (req.method === "GET") {
      const list = match[2] === undefined ? latest : versions[Number(match[2]) - 1];
      if (list === undefined) {
        return answer(404, { name: "SvcError", code: "SVC_NOT_FOUND", message: "no device list" });
      }
      return answer(200, deviceListToJson(list));
    }
    try {
      const list = deviceListFromJson(JSON.parse(String(body)) as DeviceListWire);
      const chained =
        latest === undefined
          ? list.version === 1
          : list.version === latest.version + 1 &&
            equalBytes(list.previousHash, deviceListHash(latest));
      if (list.account !== account || !chained) {
        return answer(400, {
          name: "SvcError",
          code: "SVC_BAD_REQUEST",
          message: "not the next version",
        });
      }
      checkDeviceListStep(latest, list);
      lists.set(account, [...versions, list]);
      return answer(200, { ok: true, version: list.version });
    } catch (error) {
      if (!(error instanceof DeviceListError)) throw error;
      return answer(400, { name: "SvcError", code: "SVC_BAD_REQUEST", message: error.message });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => proxy.close(() => resolve())));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, lists };
}
