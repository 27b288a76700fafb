import { decodeBase64, ed25519KeyPairFromSeed } from "@svc/canonical";
import {
  checkpointText,
  defaultOrigin,
  KtVerifyError,
  logIdOf,
  parseSth,
  type WitnessPolicy,
} from "@svc/kt-verify";
import { deviceListToJson, firstDeviceList } from "@svc/protocol";
import {
  COSIGNATURE_V1_TYPE,
  cosign,
  formatSignerKey,
  formatVerifierKey,
  parseSignerKey,
  signNote,
} from "@svc/signed-note";
import { describe, expect, it } from "vitest";
import { ClientError } from "./errors.js";
import { WITNESS_RETRY_MS } from "./kt.js";
import { parseState } from "./state.js";
import { memoryStore } from "./store.js";
import { member, testClient } from "./test-support/clients.js";
import { startTestServer, TEST_KT_SIGNING_KEY } from "./test-support/server.js";
import { hookedFetch, rewriteJson } from "./test-support/wire.js";

/** The test server's log key, so that the tests can sign its checkpoints as it would. */
const operatorSeed = decodeBase64(TEST_KT_SIGNING_KEY, 32);
const origin = defaultOrigin(logIdOf(ed25519KeyPairFromSeed(operatorSeed).publicKey));
const operator = parseSignerKey(formatSignerKey(origin, operatorSeed));
const witnesses = [1, 2, 3].map((n) => {
  const name = `w${n}.example`;
  const seed = new Uint8Array(32).fill(n);
  const { publicKey } = ed25519KeyPairFromSeed(seed);
  return { name, seed, key: formatVerifierKey(name, publicKey, COSIGNATURE_V1_TYPE) };
});
const policy: WitnessPolicy = { origin, witnesses: witnesses.map((w) => w.key), threshold: 2 };

/** The checkpoint note of an STH (JSON), signed by the log, cosigned by the first `count`. */
function checkpointOf(sth: unknown, count: number): string {
  const text = checkpointText(origin, parseSth(sth));
  const seconds = Math.floor(Date.now() / 1000);
  const lines = witnesses.slice(0, count).map((w) => cosign(text, w.name, w.seed, seconds));
  return signNote(text, [operator]) + lines.join("");
}

/**
 * A fetch that puts into each bundle answer for bob a checkpoint cosigned by `cosigners()`
 * witnesses (none: the member removed), counting those answers. The answer to the device-list
 * lookup a first send makes (bob:1 has none) gets all three, as a server whose witnesses keep up.
 */
function witnessing(cosigners: () => number | "none") {
  const seen = { bundles: 0 };
  const fetch = hookedFetch(async ({ url }, forward) => {
    const response = await forward();
    const lookup = url.pathname === "/v1/devices/bob:1";
    if (url.pathname !== "/v1/keys/bundle/bob:1" && !lookup) return response;
    if (!lookup) seen.bundles++;
    const count = lookup ? 3 : cosigners();
    return rewriteJson(response, (json) => {
      const { checkpoint: _, ...ktProof } = json.ktProof as Record<string, unknown>;
      if (count === "none") return { ...json, ktProof };
      return { ...json, ktProof: { ...ktProof, checkpoint: checkpointOf(ktProof.sth, count) } };
    });
  });
  return { fetch, seen };
}

describe("SvcClient's witnessPolicy", () => {
  it("is checked at open, naming the bad member", async () => {
    const open = (witnessPolicy: WitnessPolicy) =>
      testClient("http://127.0.0.1:9", { store: memoryStore(), witnessPolicy });
    await expect(open({ ...policy, threshold: 4 })).rejects.toThrow(
      /^options\.witnessPolicy\.threshold/,
    );
    await expect(open({ ...policy, witnesses: ["nope"] })).rejects.toThrow(RangeError);
    await expect(open({ ...policy, origin: "a b" })).rejects.toThrow(/witnessPolicy\.origin/);
  });

  it("verifies bundles whose checkpoint 2 of the 3 witnesses cosigned", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1");
    const { fetch, seen } = witnessing(() => 2);
    const alice = await member(server.url, "alice:1", { fetch, witnessPolicy: policy });
    const verified = await alice.verifyKt("bob:1");
    expect(verified.identityDHKey).toBe((await bob.whoami()).identityDHKey);
    await alice.send("bob:1", new TextEncoder().encode("witnessed"));
    expect(seen.bundles).toBe(2);
  });

  it("refuses a bundle with too few cosignatures after asking once more", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    const { fetch, seen } = witnessing(() => 1);
    const alice = await member(server.url, "alice:1", { fetch, witnessPolicy: policy });
    const started = Date.now();
    const error = await alice.verifyKt("bob:1").catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(WITNESS_RETRY_MS);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe("KT_VERIFICATION_FAILED");
    const cause = (error as ClientError).cause as KtVerifyError;
    expect(cause).toBeInstanceOf(KtVerifyError);
    expect(cause.code).toBe("KT_WITNESS_QUORUM");
    expect(cause.message).toMatch(/1 of 2 needed/);
    expect(seen.bundles).toBe(2);
    await expect(alice.send("bob:1", new Uint8Array(1))).rejects.toMatchObject({
      code: "KT_VERIFICATION_FAILED",
    });
  });

  it("takes the second answer when the witnesses have cosigned by then", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    let answers = 0;
    const { fetch, seen } = witnessing(() => (++answers === 1 ? 1 : 3));
    const alice = await member(server.url, "alice:1", { fetch, witnessPolicy: policy });
    await alice.send("bob:1", new TextEncoder().encode("second time lucky"));
    expect(seen.bundles).toBe(2);
  });

  it("does not ask again for a bundle without a checkpoint, and ignores checkpoints without a policy", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    const none = witnessing(() => "none");
    const strict = await member(server.url, "alice:1", {
      fetch: none.fetch,
      witnessPolicy: policy,
    });
    const refused = await strict.verifyKt("bob:1").catch((e: ClientError) => e);
    expect((refused as ClientError).cause).toMatchObject({ code: "KT_WITNESS_QUORUM" });
    expect(none.seen.bundles).toBe(1);
    const unwitnessed = witnessing(() => 0);
    const lenient = await member(server.url, "carol:1", { fetch: unwitnessed.fetch });
    await expect(lenient.verifyKt("bob:1")).resolves.toMatchObject({ leafIndex: 0 });
  });
});

describe("SvcClient's clock against the log's", () => {
  it("refuses a tree head stamped more than 10 minutes ahead of its clock (KT_FUTURE_STH), and one within it", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    const slow = () => Date.now() - 11 * 60_000;
    const behind = await testClient(server.url, { now: slow });
    const error = await behind.verifyKt("bob:1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe("KT_VERIFICATION_FAILED");
    expect(((error as ClientError).cause as KtVerifyError).code).toBe("KT_FUTURE_STH");
    expect((error as ClientError).message).toMatch(
      /^the bundle of bob:1 fails key transparency \(KT_FUTURE_STH\): STH at size 1 is timestamped \d+ ms ahead of this clock \(at most 600000 allowed\)$/,
    );
    const onTime = await testClient(server.url, { now: () => Date.now() - 9 * 60_000 });
    await expect(onTime.verifyKt("bob:1")).resolves.toMatchObject({ treeSize: 1 });
  });
  it("asks for a device list once more when its checkpoint lacks cosignatures", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1");
    const { identity } = parseState(await bob.store.load());
    const first = firstDeviceList(
      { address: "bob:1", identitySigningKey: decodeBase64(identity.identitySigningKey, 32) },
      decodeBase64(identity.signingSeed, 32),
    );
    await bob.api.devicesWrite("bob", deviceListToJson(first));
    let listAnswers = 0;
    // Every proof fully cosigned but the first answer for bob's list, which has one cosignature.
    const fetch = hookedFetch(async ({ url }, forward) => {
      const response = await forward();
      const proving = /^\/v1\/(devices|keys\/bundle)\//.test(url.pathname);
      if (!proving) return response;
      const count = url.pathname === "/v1/devices/bob" && ++listAnswers === 1 ? 1 : 3;
      return rewriteJson(response, (json) => {
        const ktProof = json.ktProof as Record<string, unknown> | undefined;
        if (ktProof === undefined) return json;
        return { ...json, ktProof: { ...ktProof, checkpoint: checkpointOf(ktProof.sth, count) } };
      });
    });
    const alice = await member(server.url, "alice:1", { fetch, witnessPolicy: policy });
    const sent = await alice.send("bob", new TextEncoder().encode("to bob's devices"));
    expect(sent.deliveries?.map((delivery) => delivery.address)).toEqual(["bob:1"]);
    expect(listAnswers).toBe(2);
  });
});
