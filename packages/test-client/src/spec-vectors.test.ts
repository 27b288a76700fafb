import { readFileSync } from "node:fs";
import { decodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { bridgeUrl, presenceUrl } from "./bridge.js";
import { nodeSigner } from "./node/node-signer.js";
import type { Party } from "./party.js";
import { type SignerFromSeed, seedSigner, signedBodyBy } from "./signer.js";

/** The specification's known-answer vectors, kept by @svc/canonical. */
const spec = JSON.parse(
  readFileSync(new URL("../../canonical/src/fixtures/spec-vectors.json", import.meta.url), "utf8"),
);

const signers: [string, SignerFromSeed][] = [
  ["seedSigner", seedSigner],
  ["nodeSigner", nodeSigner],
];

const partyOf = (name: "alice" | "sender", signerFromSeed: SignerFromSeed): Party => {
  const signer = signerFromSeed(decodeBase64(spec.keys[name].seed, 32));
  return { seed: signer.seed, signer, publicKey: spec.keys[name].publicKey };
};

describe.each(signers)("%s reproduces the spec vectors", (_, signerFromSeed) => {
  it.each([
    ["register", "alice"],
    ["deposit", "sender"],
    ["ack", "alice"],
  ] as const)("signed body: %s", (name, key) => {
    const vector = spec.signedBodies[name];
    const { signature: _signature, ...fields } = vector.body;
    const signer = partyOf(key, signerFromSeed).signer;
    expect(signedBodyBy(signer, vector.method, vector.path, fields)).toEqual(vector.body);
  });

  it("bridge query URL", () => {
    const { payload, signature } = spec.bridgeQuery;
    const url = new URL(
      bridgeUrl(
        "http://svc.test",
        payload.kind,
        partyOf("alice", signerFromSeed),
        payload.address,
        {
          since: payload.since,
          signedAt: payload.signedAt,
        },
      ),
    );
    expect(url.pathname).toBe(`/v1/bridge/${payload.kind}`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      address: payload.address,
      kind: payload.kind,
      since: String(payload.since),
      signedAt: String(payload.signedAt),
      signature,
    });
  });

  it("presence query URL: watched signed sorted, sent as given", () => {
    const { payload, wireWatched, signature } = spec.presenceQuery;
    const watched = wireWatched.split(",");
    const url = new URL(
      presenceUrl("", partyOf("alice", signerFromSeed), payload.address, watched, {
        signedAt: payload.signedAt,
      }),
      "http://svc.test",
    );
    expect(url.searchParams.get("watched")).toBe(wireWatched);
    expect(url.searchParams.get("signature")).toBe(signature);
  });
});
