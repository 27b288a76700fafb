import { createTestStorage } from "@svc/db/testing";
import {
  type Json,
  jsonRequest,
  oneTimePreKeys,
  registerBody,
  replenishBody,
  testIdentity,
} from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const START = 1_763_780_000_000;

async function setup(env: Record<string, string>) {
  const clock = { now: START };
  const svc = await createTestApp({ SVC_TRUST_PROXY: "1", ...env }, { now: () => clock.now });
  const send = async (method: string, path: string, ip: string, body?: Json) => {
    const init: RequestInit = body ? jsonRequest(method, body) : { method };
    init.headers = { ...init.headers, "x-forwarded-for": ip };
    const res = await svc.app.request(path, init);
    const retryAfter = res.headers.get("retry-after");
    const json = (await expectContract(res, method, path)) as Json;
    return { status: res.status, code: json.code, retryAfter };
  };
  return { ...svc, clock, send };
}

describe("keys rate limits", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("limits register per address, with Retry-After, and counts the rejection", async () => {
    const { send, clock, services } = await setup({ SVC_RATE_REGISTER_PER_ADDRESS: "2" });
    const alice = testIdentity("alice");
    expect(
      (await send("POST", "/v1/keys/register", "10.0.0.1", registerBody(alice, clock.now))).status,
    ).toBe(200);
    expect(
      (await send("POST", "/v1/keys/register", "10.0.0.2", registerBody(alice, clock.now))).status,
    ).toBe(200);
    expect(
      await send("POST", "/v1/keys/register", "10.0.0.3", registerBody(alice, clock.now)),
    ).toEqual({
      status: 429,
      code: "SVC_RATE_LIMITED",
      retryAfter: "30",
    });
    // The limit keys on the normalized address.
    const wide = testIdentity("ａｌｉｃｅ", "alice");
    expect(
      (await send("POST", "/v1/keys/register", "10.0.0.4", registerBody(wide, clock.now))).status,
    ).toBe(429);
    const bob = testIdentity("bob");
    expect(
      (await send("POST", "/v1/keys/register", "10.0.0.1", registerBody(bob, clock.now))).status,
    ).toBe(200);
    clock.now += 30_000;
    expect(
      (await send("POST", "/v1/keys/register", "10.0.0.1", registerBody(alice, clock.now))).status,
    ).toBe(200);
    const metrics = await services.metrics.registry.metrics();
    expect(metrics).toContain(
      'svc_rate_limit_rejections_total{route="/v1/keys/register",limit="register_per_address"} 2',
    );
  });

  it("limits register per client IP before reading the body", async () => {
    const { send } = await setup({ SVC_RATE_REGISTER_PER_IP: "3" });
    for (let i = 0; i < 3; i++)
      expect((await send("POST", "/v1/keys/register", "10.0.0.9", {})).status).toBe(400);
    expect(await send("POST", "/v1/keys/register", "10.0.0.9", {})).toEqual({
      status: 429,
      code: "SVC_RATE_LIMITED",
      retryAfter: "20",
    });
    expect((await send("POST", "/v1/keys/register", "10.0.0.8", {})).status).toBe(400);
  });

  it("limits replenish per address", async () => {
    const { send, clock } = await setup({ SVC_RATE_REPLENISH_PER_ADDRESS: "1" });
    const alice = testIdentity("alice");
    await send("POST", "/v1/keys/register", "10.0.0.1", registerBody(alice, clock.now));
    const body = replenishBody(alice, clock.now, oneTimePreKeys([1]));
    expect((await send("POST", "/v1/keys/replenish", "10.0.0.1", body)).status).toBe(200);
    expect(await send("POST", "/v1/keys/replenish", "10.0.0.2", body)).toEqual({
      status: 429,
      code: "SVC_RATE_LIMITED",
      retryAfter: "60",
    });
  });

  it("limits bundle fetches per client IP and per target address", async () => {
    const { send, clock } = await setup({
      SVC_RATE_BUNDLE_PER_IP: "2",
      SVC_RATE_BUNDLE_PER_ADDRESS: "3",
    });
    const alice = testIdentity("alice");
    await send(
      "POST",
      "/v1/keys/register",
      "10.0.0.1",
      registerBody(alice, clock.now, [1, 2, 3, 4]),
    );
    const fetchFrom = (ip: string, address = "alice") =>
      send("GET", `/v1/keys/bundle/${address}`, ip);
    expect((await fetchFrom("10.0.0.1")).status).toBe(200);
    expect((await fetchFrom("10.0.0.1")).status).toBe(200);
    expect(await fetchFrom("10.0.0.1")).toMatchObject({ status: 429, retryAfter: "30" });
    expect((await fetchFrom("10.0.0.2")).status).toBe(200);
    expect(await fetchFrom("10.0.0.3")).toMatchObject({ status: 429, code: "SVC_RATE_LIMITED" });
    expect((await fetchFrom("10.0.0.3", "nobody")).status).toBe(404);
    // The rejected fetches consumed nothing.
    expect((await send("GET", "/v1/keys/count/alice", "10.0.0.1")).status).toBe(200);
  });

  it("admits everything with SVC_RATE_LIMIT=off", async () => {
    const { send, clock } = await setup({
      SVC_RATE_LIMIT: "off",
      SVC_RATE_BUNDLE_PER_IP: "1",
      SVC_RATE_REGISTER_PER_ADDRESS: "1",
    });
    const alice = testIdentity("alice");
    for (let i = 0; i < 5; i++) {
      expect(
        (await send("POST", "/v1/keys/register", "10.0.0.1", registerBody(alice, clock.now)))
          .status,
      ).toBe(200);
      expect((await send("GET", "/v1/keys/bundle/alice", "10.0.0.1")).status).toBe(200);
    }
  });
});
