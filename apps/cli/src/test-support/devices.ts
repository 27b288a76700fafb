import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type DeviceList,
  type DeviceListWire,
  deviceListFromJson,
  deviceListToJson,
} from "@svc/protocol";
import type { Closer } from "./server.js";

/**
 * A relay to `upstream` that can lie about device lists, as a hostile server would: every request
 * goes through (each device-list version the server accepts is kept in `written`), except reads of
 * an account a test put versions for in `served`, answered from those, the latest with the proof
 * in `ktProof.value` (none when unset).
 */
export async function startLyingRelay(
  upstream: string,
  closers: Closer[],
): Promise<{
  url: string;
  written: Map<string, DeviceList[]>;
  served: Map<string, DeviceList[]>;
  ktProof: { value: unknown };
}> {
  const written = new Map<string, DeviceList[]>();
  const served = new Map<string, DeviceList[]>();
  const ktProof: { value: unknown } = { value: undefined };
  const relay = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const answer = (status: number, json: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    const match = /^\/v1\/devices\/([^/?]+)(?:\/versions\/(\d+))?$/.exec(req.url ?? "");
    const versions = match ? served.get(decodeURIComponent(match[1] as string)) : undefined;
    if (match && req.method === "GET" && versions !== undefined) {
      const list = match[2] === undefined ? versions.at(-1) : versions[Number(match[2]) - 1];
      if (list === undefined) {
        return answer(404, { name: "SvcError", code: "SVC_NO_DEVICE_LIST", message: "no list" });
      }
      const proof = match[2] === undefined ? ktProof.value : undefined;
      return answer(200, { ...deviceListToJson(list), ...(proof ? { ktProof: proof } : {}) });
    }
    const headers: Record<string, string> = {};
    if (req.headers["content-type"]) headers["content-type"] = req.headers["content-type"];
    const relayed = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body });
    const text = await relayed.text();
    if (match && req.method === "POST" && relayed.status === 200) {
      const list = deviceListFromJson(JSON.parse(String(body)) as DeviceListWire);
      written.set(list.account, [...(written.get(list.account) ?? []), list]);
    }
    res.writeHead(relayed.status, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => relay.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    written,
    served,
    ktProof,
  };
}
