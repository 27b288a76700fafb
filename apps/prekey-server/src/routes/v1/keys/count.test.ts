import { createTestStorage } from "@svc/db/testing";
import { jsonRequest, registerBody, testIdentity } from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const NOW = 1_763_780_000_000;

describe("GET /v1/keys/count/:address", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("counts queued one-time prekeys, 0 when unregistered, and does not consume", async () => {
    const { app } = await createTestApp({}, { now: () => NOW });
    const count = async (address: string) => {
      const path = `/v1/keys/count/${address}`;
      const res = await app.request(path);
      expect(res.status).toBe(200);
      return expectContract(res, "GET", path);
    };
    expect(await count("nobody")).toEqual({ count: 0, kemCount: 0 });
    const alice = testIdentity("alice");
    await app.request("/v1/keys/register", jsonRequest("POST", registerBody(alice, NOW, [1, 2])));
    expect(await count("alice")).toEqual({ count: 2, kemCount: 0 });
    expect(await count("alice")).toEqual({ count: 2, kemCount: 0 });
    expect(await count(encodeURIComponent("ａｌｉｃｅ"))).toEqual({ count: 2, kemCount: 0 });
  });

  it("answers 400 SVC_INVALID_ADDRESS for an invalid address", async () => {
    const { app } = await createTestApp();
    for (const bad of ["a,b", "_x", "x".repeat(300)]) {
      const path = `/v1/keys/count/${bad}`;
      const res = await app.request(path);
      expect(res.status).toBe(400);
      expect(await expectContract(res, "GET", path)).toMatchObject({ code: "SVC_INVALID_ADDRESS" });
    }
  });
});
