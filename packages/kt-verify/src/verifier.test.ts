import { encodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import { httpLogClient } from "./log-client.js";
import { portableSthVerifier } from "./signature.js";
import { type SthJson, sthToJson } from "./sth.js";
import { localStorageStore, memoryStore } from "./store.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";
import { KtVerifier, MAX_FUTURE_SKEW_MS } from "./verifier.js";

const NOW = 1_763_780_000_000;

function register(log: FakeLog, address: string, n: number): Record<string, unknown> {
  log.append({
    kind: "identity",
    address,
    identitySigningKey: key32(n),
    identityDHKey: key32(n + 1),
    timestampMs: log.now(),
  });
  return bundleOf(log, address, n);
}

function bundleOf(log: FakeLog, address: string, n: number): Record<string, unknown> {
  return {
    identitySigningKey: encodeBase64(key32(n)),
    identityDHKey: encodeBase64(key32(n + 1)),
    signedPreKey: { keyId: 1, publicKey: encodeBase64(key32(9)), signature: "" },
    ktProof: log.proofJson(address),
  };
}

function verifierFor(log: FakeLog, options: { store?: ReturnType<typeof memoryStore> } = {}) {
  return new KtVerifier({
    logPublicKey: log.publicKey,
    client: log.client(),
    now: () => NOW,
    ...options,
  });
}

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    if (error instanceof KtVerifyError) return error.code;
    throw error;
  }
  return undefined;
}

describe("KtVerifier", () => {
  it("verifies bundles and moves the trusted STH forward through consistency proofs", async () => {
    const log = new FakeLog(undefined, () => NOW);
    const verifier = verifierFor(log);
    const first = await verifier.verifyBundle("alice", register(log, "alice", 1));
    expect(first.sth.treeSize).toBe(1);
    for (let i = 0; i < 5; i++) register(log, `u${i}`, 10 + i);
    const later = await verifier.verifyBundle("alice", bundleOf(log, "alice", 1));
    expect(later.sth.treeSize).toBe(6);
    expect((await verifier.trustedSth())?.treeSize).toBe(6);
  });

  it("accepts a proof under an older STH that is a prefix of the trusted one", async () => {
    const log = new FakeLog(undefined, () => NOW);
    const old = register(log, "alice", 1);
    register(log, "bob", 3);
    const verifier = verifierFor(log);
    await verifier.refresh();
    const verified = await verifier.verifyBundle("alice", old);
    expect(verified.sth.treeSize).toBe(1);
    expect((await verifier.trustedSth())?.treeSize).toBe(2);
  });

  it("verifies tombstone and absence 404 bodies", async () => {
    const log = new FakeLog(undefined, () => NOW);
    register(log, "alice", 1);
    log.append({ kind: "tombstone", address: "alice", timestampMs: NOW });
    const verifier = verifierFor(log);
    const notFound = (address: string) => ({
      name: "NotFound",
      code: "SVC_NOT_REGISTERED",
      message: "x",
      ktProof: log.proofJson(address),
    });
    expect((await verifier.verifyNotFound("alice", notFound("alice"))).type).toBe("tombstone");
    expect((await verifier.verifyNotFound("carol", notFound("carol"))).type).toBe("absence");
    expect(await codeOf(verifier.verifyNotFound("carol", notFound("alice")))).toBe(
      "KT_KEY_MISMATCH",
    );
  });

  it("refuses a bundle without ktProof or with malformed keys", async () => {
    const log = new FakeLog(undefined, () => NOW);
    const bundle = register(log, "alice", 1);
    const verifier = verifierFor(log);
    expect(await codeOf(verifier.verifyBundle("alice", { ...bundle, ktProof: undefined }))).toBe(
      "KT_PROOF_MISSING",
    );
    expect(await codeOf(verifier.verifyBundle("alice", { ...bundle, identityDHKey: "AA==" }))).toBe(
      "KT_MALFORMED",
    );
    expect(await codeOf(verifier.verifyBundle("alice", "nope"))).toBe("KT_MALFORMED");
  });

  it("detects a fork: another log at a size it already trusts", async () => {
    const log = new FakeLog(undefined, () => NOW);
    const bundle = register(log, "alice", 1);
    const verifier = verifierFor(log);
    await verifier.verifyBundle("alice", bundle);
    const forked = new FakeLog(undefined, () => NOW);
    const forkedBundle = register(forked, "alice", 5);
    expect(await codeOf(verifier.verifyBundle("alice", { ...forkedBundle, ...keys(5) }))).toBe(
      "KT_FORK",
    );
  });

  it("detects a fork: a longer log that does not extend the trusted one", async () => {
    const log = new FakeLog(undefined, () => NOW);
    register(log, "alice", 1);
    register(log, "bob", 3);
    const verifier = verifierFor(log);
    await verifier.refresh();
    // The operator rewrites history: same key, different first leaf, longer log.
    const rewritten = new FakeLog(undefined, () => NOW);
    register(rewritten, "mallory", 7);
    register(rewritten, "bob", 3);
    const bundle = register(rewritten, "carol", 11);
    const forkedVerifier = new KtVerifier({
      logPublicKey: log.publicKey,
      client: rewritten.client(),
      store: memoryStore(sthToJson(log.latestSth())),
      now: () => NOW,
    });
    expect(await codeOf(forkedVerifier.verifyBundle("carol", bundle))).toBe("KT_FORK");
  });

  it("detects a shrink on refresh and on an older proof the log cannot extend", async () => {
    const log = new FakeLog(undefined, () => NOW);
    const old = register(log, "alice", 1);
    register(log, "bob", 3);
    const trusted = memoryStore(sthToJson(log.latestSth()));
    const shrunk = new FakeLog(undefined, () => NOW);
    register(shrunk, "alice", 1);
    const onShrunk = new KtVerifier({
      logPublicKey: log.publicKey,
      client: {
        ...shrunk.client(),
        consistency: async () => {
          throw new KtVerifyError("KT_FETCH_FAILED", "GET /v1/kt/consistency answered 400");
        },
      },
      store: trusted,
      now: () => NOW,
    });
    expect(await codeOf(onShrunk.refresh())).toBe("KT_LOG_SHRANK");
    expect(await codeOf(onShrunk.verifyBundle("alice", old))).toBe("KT_LOG_SHRANK");
  });

  it("refuses an STH stamped more than MAX_FUTURE_SKEW_MS ahead, and accepts one just within", async () => {
    const ahead = new FakeLog(undefined, () => NOW + MAX_FUTURE_SKEW_MS + 1);
    const error = await verifierFor(ahead)
      .verifyBundle("alice", register(ahead, "alice", 1))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KtVerifyError);
    expect((error as KtVerifyError).code).toBe("KT_FUTURE_STH");
    expect((error as KtVerifyError).message).toBe(
      "STH at size 1 is timestamped 600001 ms ahead of this clock (at most 600000 allowed)",
    );
    const within = new FakeLog(undefined, () => NOW + MAX_FUTURE_SKEW_MS);
    const store = memoryStore();
    await expect(
      verifierFor(within, { store }).verifyBundle("alice", register(within, "alice", 1)),
    ).resolves.toBeDefined();
    expect((await store.load())?.timestampMs).toBe(NOW + MAX_FUTURE_SKEW_MS);
  });

  it("refuses stale STHs, other logs and bad signatures", async () => {
    const log = new FakeLog(undefined, () => NOW - 24 * 3600_000 - 1);
    const bundle = register(log, "alice", 1);
    expect(await codeOf(verifierFor(log).verifyBundle("alice", bundle))).toBe("KT_STALE_STH");
    const lenient = new KtVerifier({
      logPublicKey: log.publicKey,
      client: log.client(),
      now: () => NOW,
      maxStaleMs: 48 * 3600_000,
    });
    await expect(lenient.verifyBundle("alice", bundle)).resolves.toBeDefined();

    const other = new FakeLog(key32(9), () => NOW);
    expect(
      await codeOf(
        new KtVerifier({
          logPublicKey: other.publicKey,
          client: log.client(),
          now: () => NOW,
        }).verifyBundle("alice", bundle),
      ),
    ).toBe("KT_WRONG_LOG");

    const fresh = new FakeLog(undefined, () => NOW);
    const good = register(fresh, "alice", 1) as { ktProof: { sth: SthJson } };
    const sig = Uint8Array.from(atob(good.ktProof.sth.signature), (c) => c.charCodeAt(0));
    sig[0] = (sig[0] as number) ^ 1;
    const forged = {
      ...good,
      ktProof: { ...good.ktProof, sth: { ...good.ktProof.sth, signature: encodeBase64(sig) } },
    };
    for (const signatureVerifier of [undefined, portableSthVerifier]) {
      const verifier = new KtVerifier({
        logPublicKey: fresh.publicKey,
        client: fresh.client(),
        now: () => NOW,
        ...(signatureVerifier ? { signatureVerifier } : {}),
      });
      expect(await codeOf(verifier.verifyBundle("alice", forged))).toBe("KT_BAD_SIGNATURE");
      await expect(verifier.verifyBundle("alice", good)).resolves.toBeDefined();
    }
  });

  it("serializes concurrent verifications so the store only moves forward", async () => {
    const log = new FakeLog(undefined, () => NOW);
    const bundles = Array.from({ length: 8 }, (_, i) => register(log, `user${i}`, 2 * i));
    const verifier = verifierFor(log);
    await Promise.all(
      bundles.reverse().map((bundle, i) => verifier.verifyBundle(`user${7 - i}`, bundle)),
    );
    // Newest first: the seven older proofs were checked as prefixes of the trusted size 8.
    expect((await verifier.trustedSth())?.treeSize).toBe(8);
  });

  it("keeps the trusted STH in localStorage across verifier instances", async () => {
    const items = new Map<string, string>();
    const storage = {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
    };
    const log = new FakeLog(undefined, () => NOW);
    register(log, "alice", 1);
    await verifierFor(log, { store: localStorageStore("kt", storage) }).refresh();
    expect(JSON.parse(items.get("kt") as string).treeSize).toBe(1);
    const forked = new FakeLog(undefined, () => NOW);
    const forkedBundle = register(forked, "alice", 5);
    const again = new KtVerifier({
      logPublicKey: log.publicKey,
      client: forked.client(),
      store: localStorageStore("kt", storage),
      now: () => NOW,
    });
    expect(await codeOf(again.verifyBundle("alice", { ...forkedBundle, ...keys(5) }))).toBe(
      "KT_FORK",
    );
    items.set("kt", "{not json");
    expect(await codeOf(again.refresh())).toBe("KT_MALFORMED");
    expect(() => localStorageStore("", storage)).toThrow(TypeError);
  });

  it("refuses bad options", () => {
    const log = new FakeLog();
    expect(() => new KtVerifier({ logPublicKey: log.publicKey })).toThrow(TypeError);
    expect(() => new KtVerifier({ logPublicKey: new Uint8Array(3), client: log.client() })).toThrow(
      RangeError,
    );
    expect(
      () => new KtVerifier({ logPublicKey: log.publicKey, client: log.client(), maxStaleMs: -1 }),
    ).toThrow(RangeError);
  });
});

describe("httpLogClient", () => {
  it("fetches consistency proofs and maps HTTP failures to KT_FETCH_FAILED", async () => {
    const log = new FakeLog(undefined, () => NOW);
    register(log, "a", 1);
    register(log, "b", 2);
    register(log, "c", 3);
    const calls: string[] = [];
    const client = httpLogClient("https://kt.example/", async (url) => {
      calls.push(url);
      const u = new URL(url);
      if (u.pathname === "/v1/kt/consistency") {
        const from = Number(u.searchParams.get("from"));
        const to = Number(u.searchParams.get("to"));
        return Response.json({
          fromTreeSize: from,
          toTreeSize: to,
          proof: log.tree.consistencyProof(from, to).map(encodeBase64),
        });
      }
      if (u.pathname === "/v1/kt/sth") return Response.json(sthToJson(log.latestSth()));
      if (u.pathname === "/v1/kt/sth/1") return Response.json(sthToJson(log.sths[1] as never));
      if (u.pathname === "/v1/kt/log_id") {
        return Response.json({ logId: "", publicKey: encodeBase64(log.publicKey) });
      }
      if (u.pathname === "/v1/kt/leaves") {
        return Response.json({ start: 0, leaves: log.leaves.slice(0, 2).map(encodeBase64) });
      }
      return new Response("{}", { status: 404 });
    });
    expect(await client.consistency(1, 3)).toEqual(log.tree.consistencyProof(1, 3));
    expect(calls[0]).toBe("https://kt.example/v1/kt/consistency?from=1&to=3");
    expect((await client.sth()).treeSize).toBe(3);
    expect((await client.sth(1)).treeSize).toBe(1);
    expect(await client.logPublicKey()).toEqual(log.publicKey);
    expect(await client.leaves(0, 2)).toEqual(log.leaves.slice(0, 2));
    expect(await client.leaves(2, 2)).toEqual([]);
    expect(await codeOf(client.leaves(5, 9))).toBe("KT_MALFORMED");
    const failing = httpLogClient("http://kt.example", async () => {
      throw new Error("offline");
    });
    expect(await codeOf(failing.sth())).toBe("KT_FETCH_FAILED");
    const garbage = httpLogClient("http://kt.example", async () => new Response("<html>"));
    expect(await codeOf(garbage.sth())).toBe("KT_MALFORMED");
    const wrongSizes = httpLogClient("http://kt.example", async () =>
      Response.json({ fromTreeSize: 2, toTreeSize: 3, proof: [] }),
    );
    expect(await codeOf(wrongSizes.consistency(1, 3))).toBe("KT_MALFORMED");
    expect(() => httpLogClient("ftp://x")).toThrow(TypeError);
  });
});

function keys(n: number) {
  return { identitySigningKey: encodeBase64(key32(n)), identityDHKey: encodeBase64(key32(n + 1)) };
}
