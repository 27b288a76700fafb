import { createLogger } from "@svc/node-kit";
import { describe, expect, it } from "vitest";
import { createTestApp } from "./test-support/app.js";

describe("logger", () => {
  it("writes one JSON object per line at or above its level", () => {
    const lines: string[] = [];
    const logger = createLogger("warn", (line) => lines.push(line));
    logger.info("hidden");
    logger.warn("shown", { route: "/x" });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      level: "warn",
      message: "shown",
      route: "/x",
    });
  });

  it("logs request metadata and never the body or credentials", async () => {
    const lines: string[] = [];
    const { app } = await createTestApp(
      {},
      { logger: createLogger("debug", (l) => lines.push(l)) },
    );
    const secret = "c2VjcmV0LXNpZ25hdHVyZS1ieXRlcw==";
    await app.request("/v1/keys/register", {
      method: "POST",
      body: JSON.stringify({ signature: secret }),
      headers: { authorization: `Bearer ${secret}`, "x-request-id": "req-1" },
    });
    const entry = lines.map((line) => JSON.parse(line)).find((e) => e.message === "request");
    expect(entry).toMatchObject({ requestId: "req-1", method: "POST", route: expect.any(String) });
    expect(typeof entry.status).toBe("number");
    expect(typeof entry.durationMs).toBe("number");
    expect(lines.join("\n")).not.toContain(secret);
  });

  it("logs why a request failed with 500, but not the row values PostgreSQL quotes", async () => {
    const lines: string[] = [];
    const { app } = await createTestApp(
      {},
      { logger: createLogger("error", (l) => lines.push(l)) },
    );
    app.get("/fails", () => {
      const error = new Error("deadlock detected");
      throw Object.assign(error, { code: "40P01", detail: "Key (address)=(alice) is locked" });
    });
    const res = await app.request("/fails", { headers: { "x-request-id": "req-2" } });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: "SVC_INTERNAL" });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        message: "unhandled error",
        requestId: "req-2",
        error: "Error",
        reason: "deadlock detected",
        sqlState: "40P01",
      }),
    ]);
    expect(lines.join("\n")).not.toContain("alice");
  });
});
