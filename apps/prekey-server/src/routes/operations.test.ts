import { describe, expect, it } from "vitest";
import { createTestApp } from "../test-support/app.js";
import { expectContract } from "../test-support/contract.js";

describe("operations routes", () => {
  it("reports health with the service name", async () => {
    const { app } = await createTestApp();
    const res = await app.request("/health");
    expect(res.status).toBe(200);
    expect(await expectContract(res, "GET", "/health")).toEqual({
      status: "ok",
      service: "svc-prekey-server",
    });
  });

  it("answers /health with 503 within 2 s when storage hangs", async () => {
    const svc = await createTestApp();
    svc.services.storage.ping = () => new Promise(() => {});
    const started = Date.now();
    const res = await svc.app.request("/health");
    expect(Date.now() - started).toBeLessThan(2600);
    expect(res.status).toBe(503);
    expect(await expectContract(res, "GET", "/health")).toEqual({
      status: "error",
      service: "svc-prekey-server",
    });
  });

  it("answers /health with 503 when storage is closed", async () => {
    const svc = await createTestApp();
    await svc.services.storage.close();
    const res = await svc.app.request("/health");
    expect(res.status).toBe(503);
  });

  it("answers /healthz while alive", async () => {
    const { app } = await createTestApp();
    const res = await app.request("/healthz");
    expect(await expectContract(res, "GET", "/healthz")).toEqual({ status: "ok" });
  });

  it("lists one readiness entry per backend", async () => {
    const svc = await createTestApp({ SVC_KT: "off", SVC_INBOX: "off" });
    const res = await svc.app.request("/ready");
    expect(res.status).toBe(200);
    expect(await expectContract(res, "GET", "/ready")).toEqual({
      status: "ok",
      checks: { storage: "ok", inbox: "disabled", kt: "disabled" },
    });
  });

  it("is not ready while a backend is down", async () => {
    const svc = await createTestApp({ SVC_KT: "off", SVC_INBOX: "off" });
    svc.services.readiness.set("kt", async () => false);
    const res = await svc.app.request("/ready");
    expect(res.status).toBe(503);
    const body = await expectContract(res, "GET", "/ready");
    expect(body).toMatchObject({ status: "error", checks: { kt: "error" } });
  });

  it("counts requests by route pattern, not raw path", async () => {
    const { app } = await createTestApp();
    await app.request("/healthz");
    await app.request("/no/such/thing");
    const res = await app.request("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain('svc_requests_total{route="/healthz",status="200"} 1');
    expect(text).toContain('svc_requests_total{route="unmatched",status="404"} 1');
    expect(text).not.toContain("/no/such/thing");
    expect(text).toContain("svc_process_cpu_seconds_total");
    for (const name of [
      "svc_rate_limit_rejections_total",
      "svc_kt_publish_total",
      "svc_inbox_put_total",
      "svc_inbox_fetch_total",
      "svc_inbox_ack_total",
      "svc_inbox_prune_cycles_total",
      "svc_bridge_connects_total",
    ]) {
      expect(text).toContain(`# TYPE ${name} counter`);
    }
  });

  it("serves the interface description", async () => {
    const { app } = await createTestApp();
    const res = await app.request("/openapi.yaml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/yaml/);
    const text = await res.text();
    expect(text).toMatch(/^openapi: 3\.1\.\d/m);
    expect(text).toMatch(/version: 4\.0\.0/);
  });

  it("answers unknown routes with a 404 ErrorResponse", async () => {
    const { app } = await createTestApp();
    const res = await app.request("/v1/nothing-here", { method: "POST" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      name: "NotFound",
      code: "SVC_NOT_FOUND",
      message: "no such route",
    });
  });

  it("echoes a well-formed request id and replaces a malformed one", async () => {
    const { app } = await createTestApp();
    const kept = await app.request("/healthz", { headers: { "X-Request-Id": "abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const replaced = await app.request("/healthz", { headers: { "X-Request-Id": "bad id\u0001" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("disabled features", () => {
  it("answers KT, inbox and bridge routes with 404 SVC_FEATURE_DISABLED", async () => {
    const { app } = await createTestApp({ SVC_KT: "off", SVC_INBOX: "off" });
    for (const path of ["/v1/kt/sth", "/v1/inbox/alice/fetch", "/v1/bridge/poll"]) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: "SVC_FEATURE_DISABLED" });
    }
  });
});
