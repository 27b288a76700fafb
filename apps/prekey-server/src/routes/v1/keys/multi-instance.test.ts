import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "@svc/db";
import { createTestDatabase, hasTestPostgres } from "@svc/db/testing";
import { migrations } from "@svc/server-schema";
import {
  type Json,
  jsonRequest,
  kemPreKey,
  kemPreKeys,
  oneTimePreKeys,
  range,
  registerBody,
  registerFields,
  replenishBody,
  signedBodyBy,
  testIdentity,
} from "@svc/test-client";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer } from "../../../test-support/app.js";

const alice = testIdentity("alice@example.com:1");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two servers on one new PostgreSQL database. */
async function twoInstances() {
  const database = await createTestDatabase();
  cleanups.push(database.drop);
  const servers = [];
  for (let i = 0; i < 2; i++) {
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 10, migrations });
    cleanups.push(() => storage.close());
    const server = await startTestServer({ SVC_RATE_LIMIT: "off" }, { storage });
    cleanups.push(() => server.stop()); // before its storage closes
    servers.push(server);
  }
  return servers as [(typeof servers)[0], (typeof servers)[0]];
}

describe.runIf(hasTestPostgres())("two server instances on one PostgreSQL database", () => {
  it("never hand out a one-time prekey twice and lose none", async () => {
    const [a, b] = await twoInstances();
    const post = (url: string, path: string, body: Json) =>
      fetch(`${url}${path}`, jsonRequest("POST", body));
    expect(
      (await post(a.url, "/v1/keys/register", registerBody(alice, Date.now(), range(0, 100))))
        .status,
    ).toBe(200);
    const more = replenishBody(alice, Date.now(), oneTimePreKeys(range(100, 150)));
    expect((await post(b.url, "/v1/keys/replenish", more)).status).toBe(200);

    const fetches = range(0, 240).map(async (i) => {
      const res = await fetch(`${(i % 2 ? a : b).url}/v1/keys/bundle/${alice.address}`);
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    });
    const bundles = await Promise.all(fetches);
    const handed = bundles.flatMap((bundle) =>
      bundle.oneTimePreKey ? [(bundle.oneTimePreKey as Json).keyId as number] : [],
    );
    const remaining = (await (
      await fetch(`${a.url}/v1/keys/count/${alice.address}`)
    ).json()) as Json;
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed.length + (remaining.count as number)).toBe(150);
    expect(bundles.filter((bundle) => !("oneTimePreKey" in bundle))).toHaveLength(
      240 - handed.length,
    );
    expect(handed).toHaveLength(150);
  }, 60_000);

  it("never hand out a one-time KEM prekey twice, then serve the last-resort key", async () => {
    const [a, b] = await twoInstances();
    const post = async (url: string, path: string, fields: Json) => {
      const body = signedBodyBy(alice.signer, "POST", path, { ...fields, signedAt: Date.now() });
      expect((await fetch(`${url}${path}`, jsonRequest("POST", body))).status).toBe(200);
    };
    const lastResort = kemPreKey(alice, 5000, "last-resort");
    const { signedAt: _, ...identity } = registerFields(alice, 0, range(0, 100));
    await post(a.url, "/v1/keys/register", {
      ...identity,
      kemLastResortPreKey: lastResort,
      kemPreKeys: kemPreKeys(alice, range(0, 100)),
    });
    for (const from of [100, 150]) {
      await post(b.url, "/v1/keys/replenish", {
        address: alice.address,
        oneTimePreKeys: from === 100 ? oneTimePreKeys(range(100, 150)) : [],
        kemPreKeys: kemPreKeys(alice, range(from, from + 50)),
      });
    }

    const bundles = await Promise.all(
      range(0, 230).map(async (i) => {
        const res = await fetch(`${(i % 2 ? a : b).url}/v1/keys/bundle/${alice.address}`);
        expect(res.status).toBe(200);
        return (await res.json()) as Json;
      }),
    );
    const kem = bundles.map((bundle) => bundle.kemPreKey as Json);
    const oneTime = kem.filter((key) => !key.lastResort).map((key) => key.keyId);
    const handed = bundles.flatMap((bundle) =>
      bundle.oneTimePreKey ? [(bundle.oneTimePreKey as Json).keyId] : [],
    );
    expect(new Set(oneTime).size).toBe(oneTime.length);
    expect(oneTime.sort((x, y) => (x as number) - (y as number))).toEqual(range(0, 200));
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed).toHaveLength(150);
    const fallbacks = kem.filter((key) => key.lastResort);
    expect(fallbacks).toHaveLength(30);
    for (const key of fallbacks) expect(key).toEqual({ ...lastResort, lastResort: true });
    const counts = await (await fetch(`${b.url}/v1/keys/count/${alice.address}`)).json();
    expect(counts).toEqual({ count: 0, kemCount: 0 });
    const after = (await (await fetch(`${a.url}/v1/keys/bundle/${alice.address}`)).json()) as Json;
    expect(after.kemPreKey).toEqual({ ...lastResort, lastResort: true });
  }, 60_000);
});

describe("restart", () => {
  it("serves a registered bundle after the embedded database is reopened", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-keys-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await openStorage({ dataDir, migrations });
    const server = await startTestServer({ SVC_RATE_LIMIT: "off" }, { storage: first });
    const res = await fetch(
      `${server.url}/v1/keys/register`,
      jsonRequest("POST", registerBody(alice, Date.now(), [7])),
    );
    expect(res.status).toBe(200);
    await server.stop();
    await first.close();

    const reopened = await openStorage({ dataDir, migrations });
    cleanups.push(() => reopened.close());
    const again = await startTestServer({ SVC_RATE_LIMIT: "off" }, { storage: reopened });
    cleanups.push(() => again.stop());
    const bundle = (await (
      await fetch(`${again.url}/v1/keys/bundle/${alice.address}`)
    ).json()) as Json;
    expect(bundle.identitySigningKey).toBe(alice.identitySigningKey);
    expect(bundle.oneTimePreKey).toEqual(oneTimePreKeys([7])[0]);
  }, 60_000);
});
