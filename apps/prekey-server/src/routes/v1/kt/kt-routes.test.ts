import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import { createSthSigner, KtLog } from "@svc/kt-log";
import { defaultOrigin, parseSth, verifySthSignature } from "@svc/kt-verify";
import { verifyConsistency } from "@svc/merkle";
import { migrations } from "@svc/server-schema";
import { ED25519_TYPE, formatVerifierKey } from "@svc/signed-note";
import { vrfPublicKey } from "@svc/vrf";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TEST_KT_VRF_KEY } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { startKtLog } from "./index.js";

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage({ migrations })).close());

const SEED = new Uint8Array(32).fill(5);
const KT_ENV = { SVC_KT_SIGNING_KEY: encodeBase64(SEED) };
type Json = Record<string, unknown>;

async function ktApp(env: Record<string, string> = KT_ENV) {
  const svc = await createTestApp(env);
  const get = async (path: string, template = path.split("?")[0] as string) => {
    const res = await svc.app.request(path);
    return { status: res.status, body: (await expectContract(res, "GET", template)) as Json };
  };
  return { svc, get };
}

/** A second log instance on the app's database: appends show in the app's routes. */
function sameLog(svc: Awaited<ReturnType<typeof createTestApp>>) {
  return KtLog.open({
    storage: svc.services.storage,
    signer: createSthSigner(SEED),
    vrfSecretKey: decodeBase64(TEST_KT_VRF_KEY, 32),
  });
}

async function appendIdentities(log: KtLog, n: number) {
  for (let i = 0; i < n; i++) {
    await log.append({
      kind: "identity",
      address: `user${i}`,
      identitySigningKey: new Uint8Array(32).fill(i),
      identityDHKey: new Uint8Array(32).fill(i + 1),
    });
  }
}

describe("key transparency routes", () => {
  it("GET /v1/kt/log_id names the operator key and its SHA-256", async () => {
    const { get } = await ktApp();
    const { status, body } = await get("/v1/kt/log_id");
    expect(status).toBe(200);
    const signer = createSthSigner(SEED);
    expect(body).toEqual({
      logId: encodeBase64(signer.logId),
      publicKey: encodeBase64(signer.publicKey),
      vrfPublicKey: encodeBase64(vrfPublicKey(decodeBase64(TEST_KT_VRF_KEY, 32))),
      origin: defaultOrigin(signer.logId),
      checkpointKey: formatVerifierKey(defaultOrigin(signer.logId), signer.publicKey, ED25519_TYPE),
    });
  });

  it("GET /v1/kt/sth answers the latest signed head, /sth/{n} every size up to it", async () => {
    const { svc, get } = await ktApp();
    const initial = await get("/v1/kt/sth");
    expect(initial.body.treeSize).toBe(0);
    await appendIdentities(await sameLog(svc), 3);
    const latest = await get("/v1/kt/sth");
    expect(latest.body.treeSize).toBe(3);
    const publicKey = createSthSigner(SEED).publicKey;
    for (let n = 0; n <= 3; n++) {
      const { status, body } = await get(`/v1/kt/sth/${n}`, "/v1/kt/sth/{treeSize}");
      expect(status).toBe(200);
      expect(body.treeSize).toBe(n);
      expect(await verifySthSignature(parseSth(body), publicKey)).toBe(true);
    }
    const missing = await get("/v1/kt/sth/4", "/v1/kt/sth/{treeSize}");
    expect(missing).toMatchObject({ status: 404, body: { code: "SVC_STH_NOT_FOUND" } });
  });

  it.each(["-1", "1.5", "abc", "01", "9007199254740992", "1e3", "%20"])(
    "GET /v1/kt/sth/%s is 400",
    async (size) => {
      const { get } = await ktApp();
      const res = await get(`/v1/kt/sth/${size}`, "/v1/kt/sth/{treeSize}");
      expect(res).toMatchObject({ status: 400, body: { code: "SVC_BAD_REQUEST" } });
    },
  );

  it("GET /v1/kt/consistency proves every pair of sizes, `to` defaulting to the latest", async () => {
    const { svc, get } = await ktApp();
    await appendIdentities(await sameLog(svc), 5);
    const roots = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(
        async (n) =>
          parseSth((await get(`/v1/kt/sth/${n}`, "/v1/kt/sth/{treeSize}")).body).rootHash,
      ),
    );
    for (let from = 0; from <= 5; from++) {
      for (let to = from; to <= 5; to++) {
        const { status, body } = await get(`/v1/kt/consistency?from=${from}&to=${to}`);
        expect(status).toBe(200);
        expect(body).toMatchObject({ fromTreeSize: from, toTreeSize: to });
        const proof = (body.proof as string[]).map((h) =>
          Uint8Array.from(atob(h), (ch) => ch.charCodeAt(0)),
        );
        if (from === 0 || from === to) expect(proof).toEqual([]);
        expect(
          verifyConsistency(from, to, roots[from] as Uint8Array, roots[to] as Uint8Array, proof),
        ).toBe(true);
      }
    }
    const defaulted = await get("/v1/kt/consistency?from=2");
    expect(defaulted.body).toMatchObject({ fromTreeSize: 2, toTreeSize: 5 });
  });

  it.each([
    ["from > to", "?from=3&to=2"],
    ["to past the latest size", "?from=0&to=9"],
    ["from past the latest size", "?from=9"],
    ["missing from", "?to=1"],
    ["malformed from", "?from=x"],
    ["negative to", "?from=0&to=-1"],
  ])("GET /v1/kt/consistency with %s is 400", async (_, query) => {
    const { svc, get } = await ktApp();
    await appendIdentities(await sameLog(svc), 3);
    const res = await get(`/v1/kt/consistency${query}`);
    expect(res).toMatchObject({ status: 400, body: { code: "SVC_BAD_REQUEST" } });
  });

  it("GET /v1/kt/leaves pages the log's leaves", async () => {
    const { svc, get } = await ktApp();
    await appendIdentities(await sameLog(svc), 4);
    const all = await get("/v1/kt/leaves?start=0");
    expect(all.status).toBe(200);
    expect(all.body.start).toBe(0);
    expect(all.body.leaves).toHaveLength(4);
    const some = await get("/v1/kt/leaves?start=1&end=3");
    expect(some.body.leaves).toEqual((all.body.leaves as string[]).slice(1, 3));
    expect((await get("/v1/kt/leaves?start=4")).body.leaves).toEqual([]);
    for (const bad of ["", "?start=5", "?start=0&end=5", "?start=3&end=2", "?start=a"]) {
      const res = await get(`/v1/kt/leaves${bad}`);
      expect(res).toMatchObject({ status: 400, body: { code: "SVC_BAD_REQUEST" } });
    }
  });

  it("never answers a 500 for any query string", async () => {
    const { get } = await ktApp();
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (a, b) => {
        const query = `?from=${encodeURIComponent(a)}&to=${encodeURIComponent(b)}`;
        const res = await get(`/v1/kt/consistency${query}`);
        expect([200, 400]).toContain(res.status);
        const leaves = await get(`/v1/kt/leaves?start=${encodeURIComponent(a)}`);
        expect([200, 400]).toContain(leaves.status);
        const sth = await get(
          // "", "." and ".." would not reach the route (dot segments are removed by URL parsing).
          `/v1/kt/sth/${a === "" || a === "." || a === ".." ? "x" : encodeURIComponent(a)}`,
          "/v1/kt/sth/{treeSize}",
        );
        expect([200, 400, 404]).toContain(sth.status);
      }),
      { numRuns: 40 },
    );
  });

  it("counts and announces every STH, and reports ready", async () => {
    const { svc } = await ktApp();
    const metric = async () => (await svc.services.metrics.ktPublish.get()).values[0]?.value ?? 0;
    expect(await metric()).toBe(1); // the size-0 STH of the new log
    const published: number[] = [];
    svc.services.events.on("kt.published", ({ treeSize }) => published.push(treeSize));
    // The app's log logs only what its directory holds: tombstones of addresses it has none for.
    const log = await startKtLog(svc.services);
    for (const address of ["gone1", "gone2"]) await log.append({ kind: "tombstone", address });
    expect(published).toEqual([1, 2]);
    expect(await metric()).toBe(3);
    const ready = await svc.app.request("/ready");
    expect(((await expectContract(ready, "GET", "/ready")) as Json).checks).toMatchObject({
      kt: "ok",
    });
  });

  it("answers 404 SVC_FEATURE_DISABLED on every KT route when SVC_KT=off", async () => {
    const { get } = await ktApp({ SVC_KT: "off" });
    for (const [path, template] of [
      ["/v1/kt/log_id", "/v1/kt/log_id"],
      ["/v1/kt/sth", "/v1/kt/sth"],
      ["/v1/kt/sth/0", "/v1/kt/sth/{treeSize}"],
      ["/v1/kt/consistency?from=0", "/v1/kt/consistency"],
      ["/v1/kt/leaves?start=0", "/v1/kt/leaves"],
    ] as const) {
      const res = await get(path, template);
      expect(res).toMatchObject({ status: 404, body: { code: "SVC_FEATURE_DISABLED" } });
    }
  });
});
