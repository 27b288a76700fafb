import { ROUTES, type RouteContract, routePattern } from "@svc/protocol";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import { STORE_KINDS, startPeers } from "../test-support/receiver-harness.js";
import { mountTransferReceiver } from "./mount.js";

const closers: Closer[] = [];
afterAll(() => closeAll(closers));

describe("the routes a receiver registers", () => {
  it("are exactly the receiver's routes of ROUTES", async () => {
    const peers = await startPeers(closers);
    const openStore = await STORE_KINDS[0]?.open(closers);
    if (openStore === undefined) throw new Error("no store kind");
    const app = new Hono();
    const mounted = mountTransferReceiver(app, {
      client: peers.receiver,
      store: openStore(),
      dir: await tempDir(closers, "svc-received-"),
    });
    closers.push(async () => mounted.close());
    const contracted = (Object.values(ROUTES) as RouteContract[])
      .filter((route) => route.server === "receiver")
      .map((route) => `${route.method} ${routePattern(route)}`)
      .sort();
    expect(contracted).toHaveLength(4);
    // Middleware is registered for method ALL.
    const served = app.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    expect(served).toEqual(contracted);
  });
});
