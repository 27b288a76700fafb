import { ROUTES, type RouteContract, routePattern } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../test-support/app.js";

const contracted = (Object.values(ROUTES) as RouteContract[])
  .filter((route) => route.server !== "receiver")
  .map((route) => `${route.method} ${routePattern(route)}`)
  .sort();

describe("the routes the prekey server registers", () => {
  it("are exactly the prekey server's routes of ROUTES, every feature on", async () => {
    const { app } = await createTestApp({ SVC_OBSERVER_TOKEN: "t".repeat(32) });
    // Middleware (and a switched-off feature's catch-all) is registered for method ALL.
    const served = app.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    expect(served).toEqual(contracted);
  });

  it("answer their ROUTES path: no request to one is an unknown route", async () => {
    const { app } = await createTestApp({ SVC_OBSERVER_TOKEN: "t".repeat(32) });
    for (const route of Object.values(ROUTES) as RouteContract[]) {
      if (route.server === "receiver") continue;
      const res = await app.request(route.path.replace(/\{[^}]+\}/g, "x"), {
        method: route.method,
      });
      const json = res.headers.get("content-type")?.startsWith("application/json");
      const body = json ? ((await res.json()) as { code?: string }) : {};
      if (!json) await res.body?.cancel();
      expect(body.code, `${route.method} ${route.path}`).not.toBe("SVC_NOT_FOUND");
    }
  });
});
