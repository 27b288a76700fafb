import { readFile } from "node:fs/promises";
import { createTestStorage } from "@svc/db/testing";
import { type Json, jsonRequest } from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

interface Vector {
  label: string;
  method: string;
  path: string;
  body: Json;
}

const VECTORS = new URL(
  "../../../../../../packages/protocol/src/fixtures/signing-vectors.json",
  import.meta.url,
);

describe("the keys signing vectors (docs/protocol.md section 7 worked example)", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("are accepted as sent, and the queue keeps their arrival order", async () => {
    const vectors = JSON.parse(await readFile(VECTORS, "utf8")) as Vector[];
    const byLabel = (label: string) => {
      const vector = vectors.find((v) => v.label === label);
      if (!vector) throw new Error(`no vector ${label}`);
      return vector;
    };
    const { app } = await createTestApp({}, { now: () => 1_763_780_000_000 });
    const send = async ({ method, path, body }: Vector) => {
      const res = await app.request(path, jsonRequest(method, body));
      return expectContract(res, method, path);
    };
    expect(await send(byLabel("keys.register"))).toEqual({ ok: true });
    expect(await send(byLabel("keys.replenish"))).toEqual({
      ok: true,
      remaining: 3,
      kemRemaining: 0,
    });
    const bundle = async () => {
      const path = "/v1/keys/bundle/alice@example.com:1";
      const body = (await expectContract(await app.request(path), "GET", path)) as Json;
      return (body.oneTimePreKey as Json | undefined)?.keyId;
    };
    expect([await bundle(), await bundle(), await bundle(), await bundle()]).toEqual([
      7,
      3,
      8,
      undefined,
    ]);
    expect(await send(byLabel("keys.delete"))).toEqual({ ok: true });
  });
});
