import { createLogger } from "@svc/node-kit";
import { SvcError } from "@svc/protocol";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorResponder, routeNotFound } from "./errors.js";

function appThrowing(error: unknown, lines: string[] = []) {
  const app = new Hono();
  app.get("/", () => {
    throw error;
  });
  app.notFound(routeNotFound);
  app.onError(errorResponder(createLogger("error", (line) => lines.push(line))));
  return app;
}

describe("errorResponder", () => {
  it("answers an SvcError with its code's status, its body and its headers", async () => {
    const refusal = new SvcError("SVC_QUOTA_EXCEEDED", "inbox full", {
      retryAfterSeconds: 7,
      headers: { "WWW-Authenticate": "Bearer" },
      extra: { lastSeqAcked: "3" },
    });
    const res = await appThrowing(refusal).request("/");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await res.json()).toEqual({
      name: "TooManyRequests",
      code: "SVC_QUOTA_EXCEEDED",
      message: "inbox full",
      lastSeqAcked: "3",
    });
  });

  it("keeps an inbox stale signature at 409", async () => {
    const stale = new SvcError("SVC_STALE_SIGNATURE", "stale", { status: 409 });
    expect((await appThrowing(stale).request("/")).status).toBe(409);
  });

  it("hides an internal error's message and logs its kind without the request", async () => {
    const lines: string[] = [];
    const failure = Object.assign(new Error("relation secret_table does not exist"), {
      code: "42P01",
    });
    const res = await appThrowing(failure, lines).request("/", {
      headers: { authorization: "Bearer hunter2-hunter2" },
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      name: "InternalError",
      code: "SVC_INTERNAL",
      message: "internal error",
    });
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ error: "Error", sqlState: "42P01" });
    expect(lines.join("")).not.toContain("hunter2");
  });

  it("logs a 503 as a warning, not as an unhandled error", async () => {
    const lines: string[] = [];
    const cause = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const away = new SvcError("SVC_UNAVAILABLE", "the database is not reachable", { cause });
    const res = await appThrowing(away, lines).request("/");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      name: "Unavailable",
      code: "SVC_UNAVAILABLE",
      message: "the database is not reachable",
    });
    expect(lines).toEqual([]); // the logger of appThrowing logs errors only
    const warnings: string[] = [];
    const app = new Hono();
    app.get("/", () => {
      throw away;
    });
    app.onError(errorResponder(createLogger("warn", (line) => warnings.push(line))));
    await app.request("/");
    expect(JSON.parse(warnings[0] ?? "")).toMatchObject({
      level: "warn",
      message: "unavailable",
      error: "Error",
      sqlState: "ECONNREFUSED",
    });
  });

  it("answers a CanonicalError as the 400 it stands for", async () => {
    const { normalizeAddress } = await import("@svc/canonical");
    let thrown: unknown;
    try {
      normalizeAddress("bad,address");
    } catch (error) {
      thrown = error;
    }
    const res = await appThrowing(thrown).request("/");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "SVC_INVALID_ADDRESS" });
  });

  it("answers an unknown route with a 404 ErrorResponse", async () => {
    const res = await appThrowing(new Error("unused")).request("/nowhere");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ name: "NotFound", code: "SVC_NOT_FOUND" });
  });
});
