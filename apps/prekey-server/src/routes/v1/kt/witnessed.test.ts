import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  decodeBase64,
  ed25519KeyPairFromSeed,
  ed25519Sign,
  encodeBase64,
  x25519PublicKeyFromSeed,
} from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import {
  checkpointText,
  defaultOrigin,
  httpLogClient,
  KtVerifier,
  logIdOf,
  parseSth,
} from "@svc/kt-verify";
import { MemoryWitnessState, Witness, witnessRoutes } from "@svc/kt-witness";
import { ConfigError } from "@svc/node-kit";
import { signedBody } from "@svc/protocol";
import { migrations } from "@svc/server-schema";
import {
  COSIGNATURE_V1_TYPE,
  ED25519_TYPE,
  formatSignerKey,
  formatVerifierKey,
  openNote,
  parseSignerKey,
  parseVerifierKey,
} from "@svc/signed-note";
import { vrfPublicKey } from "@svc/vrf";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../config.js";
import { createTestApp, TEST_KT_SIGNING_KEY, TEST_KT_VRF_KEY } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

beforeAll(async () => (await createTestStorage({ migrations })).close());

const operatorKey = ed25519KeyPairFromSeed(decodeBase64(TEST_KT_SIGNING_KEY, 32)).publicKey;
const origin = "keys.example.org/kt";
const logVerifier = parseVerifierKey(formatVerifierKey(origin, operatorKey, ED25519_TYPE));
const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A witness of the test log listening on a free port. */
async function listeningWitness(name: string, fill: number) {
  const state = new MemoryWitnessState();
  const witness = new Witness({
    signer: parseSignerKey(formatSignerKey(name, new Uint8Array(32).fill(fill))),
    logs: [logVerifier],
    state,
  });
  const server = serve({ fetch: witnessRoutes(witness).fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  stops.push(() => server.close());
  const { port } = server.address() as AddressInfo;
  return { verifierKey: witness.verifierKey(), url: `http://127.0.0.1:${port}`, state };
}

async function register(svc: Awaited<ReturnType<typeof createTestApp>>, address: string) {
  const seed = new Uint8Array(32).fill(address.length);
  const spk = x25519PublicKeyFromSeed(new Uint8Array(32).fill(3));
  const fields = {
    address,
    identitySigningKey: encodeBase64(ed25519KeyPairFromSeed(seed).publicKey),
    identityDHKey: encodeBase64(x25519PublicKeyFromSeed(new Uint8Array(32).fill(4))),
    signedPreKey: {
      keyId: 1,
      publicKey: encodeBase64(spk),
      signature: encodeBase64(ed25519Sign(spk, seed)),
    },
    signedAt: Date.now(),
  };
  const res = await svc.app.request("/v1/keys/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(signedBody("POST", "/v1/keys/register", fields, seed)),
  });
  expect(res.status).toBe(200);
}

describe("witnessed checkpoints", () => {
  it("GET /v1/kt/checkpoint is the latest STH as a checkpoint signed under the default origin", async () => {
    const svc = await createTestApp();
    await register(svc, "alice");
    const res = await svc.app.request("/v1/kt/checkpoint");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const note = await res.text();
    const sth = parseSth(await (await svc.app.request("/v1/kt/sth")).json());
    const name = defaultOrigin(logIdOf(operatorKey));
    const opened = openNote(note, [
      parseVerifierKey(formatVerifierKey(name, operatorKey, ED25519_TYPE)),
    ]);
    expect(opened.text).toBe(checkpointText(name, sth));
    expect(sth.treeSize).toBe(1);
  });

  it("has every write cosigned by the SVC_KT_WITNESSES witnesses, and bundles carry the cosigned checkpoint", async () => {
    const witnesses = [
      await listeningWitness("w1.example", 1),
      await listeningWitness("w2.example", 2),
    ];
    const svc = await createTestApp({
      SVC_KT_ORIGIN: origin,
      SVC_KT_WITNESSES: witnesses.map((w) => `${w.verifierKey} ${w.url}/`).join(",\n"),
    });
    await register(svc, "alice");
    await register(svc, "bob");
    const res = await svc.app.request("/v1/keys/bundle/alice");
    const body = (await expectContract(res, "GET", "/v1/keys/bundle/{address}")) as {
      ktProof: { sth: unknown; checkpoint: string };
    };
    const sth = parseSth(body.ktProof.sth);
    expect(sth.treeSize).toBe(2);
    const opened = openNote(body.ktProof.checkpoint, [
      logVerifier,
      ...witnesses.map((w) => parseVerifierKey(w.verifierKey)),
    ]);
    expect(opened.text).toBe(checkpointText(origin, sth));
    expect(opened.signatures.map((s) => [s.name, s.key.type])).toEqual([
      [origin, ED25519_TYPE],
      ["w1.example", COSIGNATURE_V1_TYPE],
      ["w2.example", COSIGNATURE_V1_TYPE],
    ]);
    for (const w of witnesses) expect((await w.state.read(origin))?.size).toBe(2);
    expect(await (await svc.app.request("/v1/kt/checkpoint")).text()).toBe(body.ktProof.checkpoint);
    // The size-0 head at start (the catch-up), then one per write.
    const metrics = await (await svc.app.request("/metrics")).text();
    expect(metrics).toMatch(
      /svc_kt_witness_submissions_total\{witness="w1.example",outcome="cosigned"\} 3/,
    );
  });

  it("exposes a split view: the witnesses refuse the second tree, a client with a 2-of-2 policy refuses its proofs", async () => {
    const witnesses = [
      await listeningWitness("w1.example", 1),
      await listeningWitness("w2.example", 2),
    ];
    const env = {
      SVC_KT_ORIGIN: origin,
      SVC_KT_WITNESSES: witnesses.map((w) => `${w.verifierKey} ${w.url}`).join(","),
    };
    // One operator (the same signing and VRF keys), two databases: two trees of one log.
    const shown = await createTestApp(env);
    const split = await createTestApp(env);
    await register(shown, "alice");
    await register(split, "mallory");
    const policy = { origin, witnesses: witnesses.map((w) => w.verifierKey), threshold: 2 };
    const clientOf = (svc: Awaited<ReturnType<typeof createTestApp>>) =>
      new KtVerifier({
        logPublicKey: operatorKey,
        vrfPublicKey: vrfPublicKey(decodeBase64(TEST_KT_VRF_KEY, 32)),
        witnessPolicy: policy,
        client: httpLogClient("http://svc.test", (url) => Promise.resolve(svc.app.request(url))),
      });
    const bundle = async (svc: Awaited<ReturnType<typeof createTestApp>>, address: string) =>
      (await svc.app.request(`/v1/keys/bundle/${address}`)).json();

    expect(await clientOf(shown).verifyBundle("alice", await bundle(shown, "alice"))).toMatchObject(
      { type: "inclusion", sth: { treeSize: 1 } },
    );
    await expect(
      clientOf(split).verifyBundle("mallory", await bundle(split, "mallory")),
    ).rejects.toMatchObject({ code: "KT_WITNESS_QUORUM" });
    const shownRoot = parseSth(await (await shown.app.request("/v1/kt/sth")).json()).rootHash;
    for (const w of witnesses) {
      expect((await w.state.read(origin))?.rootHash).toEqual(shownRoot);
    }
    const refused = await (await split.app.request("/metrics")).text();
    expect(refused).toMatch(
      /svc_kt_witness_submissions_total\{witness="w1.example",outcome="conflict"\} 1/,
    );
    // The split log's own checkpoint is operator-signed, without a cosignature: evidence of it.
    const note = await (await split.app.request("/v1/kt/checkpoint")).text();
    expect(openNote(note, [logVerifier]).text).not.toBe(
      openNote(await (await shown.app.request("/v1/kt/checkpoint")).text(), [logVerifier]).text,
    );
  });

  it("answers 404 SVC_FEATURE_DISABLED for the checkpoint when SVC_KT=off", async () => {
    const svc = await createTestApp({ SVC_KT: "off" });
    const res = await svc.app.request("/v1/kt/checkpoint");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "SVC_FEATURE_DISABLED" });
  });

  it("refuses bad SVC_KT_WITNESSES and SVC_KT_ORIGIN values, naming each", () => {
    const witnessKey = formatVerifierKey("w.example", operatorKey, COSIGNATURE_V1_TYPE);
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
    };
    expect(
      problems({
        SVC_KT_WITNESSES: `${witnessKey} http://w.example, ${witnessKey} http://x.example`,
      }),
    ).toEqual(["SVC_KT_WITNESSES entry 2: two witnesses are named w.example"]);
    expect(
      problems({
        SVC_KT_WITNESSES: `${formatVerifierKey("w", operatorKey, ED25519_TYPE)} http://w`,
      }),
    ).toEqual(["SVC_KT_WITNESSES entry 1: the key must be a cosignature/v1 key (type 0x04)"]);
    expect(
      problems({ SVC_KT_WITNESSES: `${witnessKey} ftp://w, nonsense http://w, ${witnessKey}` }),
    ).toEqual([
      "SVC_KT_WITNESSES entry 1: the URL must be an http:// or https:// URL",
      "SVC_KT_WITNESSES entry 2: the key is not a C2SP verifier key",
      'SVC_KT_WITNESSES entry 3: must be "<verifier key> <url>"',
    ]);
    expect(problems({ SVC_KT_ORIGIN: "a b" })[0]).toMatch(/^SVC_KT_ORIGIN: /);
    expect(
      loadConfig({ SVC_KT_WITNESSES: ` ${witnessKey}   https://w.example/sub/ ` }).kt.witnesses,
    ).toEqual([{ verifier: parseVerifierKey(witnessKey), url: "https://w.example/sub" }]);
  });
});
