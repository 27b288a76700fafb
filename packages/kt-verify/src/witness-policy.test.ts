import { ed25519KeyPairFromSeed } from "@svc/canonical";
import { formatVerifierKey } from "@svc/signed-note";
import { describe, expect, it } from "vitest";
import { FakeLog, FakeWitness } from "./test-support/fake-log.js";
import { KtVerifier } from "./verifier.js";
import { parseWitnessPolicy, type WitnessPolicy } from "./witness-policy.js";

const witnesses = ["w1.example", "w2.example", "w3.example"].map((n) => new FakeWitness(n));
const policy: WitnessPolicy = {
  origin: "svc-kt/0011223344556677",
  witnesses: witnesses.map((w) => w.verifierKey),
  threshold: 2,
};

describe("parseWitnessPolicy", () => {
  it("parses the witnesses' keys", () => {
    const parsed = parseWitnessPolicy({ ...policy, maxAgeMs: 60_000 });
    expect(parsed.origin).toBe(policy.origin);
    expect(parsed.witnesses.map((w) => [w.name, w.type])).toEqual([
      ["w1.example", 4],
      ["w2.example", 4],
      ["w3.example", 4],
    ]);
    expect(parsed.threshold).toBe(2);
    expect(parsed.maxAgeMs).toBe(60_000);
    expect(parseWitnessPolicy({ ...policy, threshold: 3 }).maxAgeMs).toBeUndefined();
  });

  it("names the bad member with a TypeError or RangeError", () => {
    const ed25519Key = formatVerifierKey(
      "w4.example",
      ed25519KeyPairFromSeed(new Uint8Array(32)).publicKey,
    );
    const cases: [unknown, ErrorConstructor, RegExp][] = [
      [null, TypeError, /^witnessPolicy must be an object/],
      [{ ...policy, origin: undefined }, TypeError, /witnessPolicy\.origin/],
      [{ ...policy, origin: "" }, RangeError, /witnessPolicy\.origin must be a key name/],
      [{ ...policy, origin: "a b" }, RangeError, /witnessPolicy\.origin/],
      [{ ...policy, origin: "a+b" }, RangeError, /witnessPolicy\.origin/],
      [{ ...policy, witnesses: "w1" }, TypeError, /witnessPolicy\.witnesses must be an array/],
      [{ ...policy, witnesses: [policy.witnesses[0], 7] }, TypeError, /witnesses\[1\]/],
      [
        { ...policy, witnesses: [`${policy.witnesses[0]}x`] },
        RangeError,
        /witnesses\[0\] is not a verifier key/,
      ],
      [{ ...policy, witnesses: [ed25519Key] }, RangeError, /witnesses\[0\] .*type 0x04/],
      [
        {
          ...policy,
          witnesses: [
            ...policy.witnesses,
            new FakeWitness("w1.example", new Uint8Array(32)).verifierKey,
          ],
        },
        RangeError,
        /witnesses\[3\] repeats the witness name w1\.example/,
      ],
      [{ ...policy, threshold: 0 }, RangeError, /witnessPolicy\.threshold .*\(3\)/],
      [{ ...policy, threshold: 4 }, RangeError, /witnessPolicy\.threshold/],
      [{ ...policy, threshold: 1.5 }, RangeError, /witnessPolicy\.threshold/],
      [{ ...policy, threshold: "2" }, RangeError, /witnessPolicy\.threshold/],
      [{ ...policy, witnesses: [], threshold: 1 }, RangeError, /threshold .*\(0\)/],
      [{ ...policy, maxAgeMs: -1 }, RangeError, /witnessPolicy\.maxAgeMs/],
      [{ ...policy, maxAgeMs: Number.NaN }, RangeError, /witnessPolicy\.maxAgeMs/],
    ];
    for (const [bad, type, message] of cases) {
      expect(() => parseWitnessPolicy(bad as WitnessPolicy), JSON.stringify(bad)).toThrow(type);
      expect(() => parseWitnessPolicy(bad as WitnessPolicy)).toThrow(message);
    }
    expect(() => parseWitnessPolicy({ ...policy, threshold: 0 }, "options.x")).toThrow(
      /^options\.x\.threshold/,
    );
  });
});

describe("KtVerifier's witnessPolicy option", () => {
  it("is checked at construction, and needs a client that reads checkpoints", () => {
    const log = new FakeLog();
    const options = { logPublicKey: log.publicKey, client: log.client() };
    expect(() => new KtVerifier({ ...options, witnessPolicy: policy })).not.toThrow();
    expect(
      () => new KtVerifier({ ...options, witnessPolicy: { ...policy, threshold: 5 } }),
    ).toThrow(/^options\.witnessPolicy\.threshold/);
    const { checkpoint: _, ...oldClient } = log.client();
    expect(() => new KtVerifier({ ...options, client: oldClient, witnessPolicy: policy })).toThrow(
      TypeError,
    );
    expect(() => new KtVerifier({ ...options, client: oldClient })).not.toThrow();
    expect(
      () =>
        new KtVerifier({
          logPublicKey: log.publicKey,
          baseUrl: "https://x.test",
          witnessPolicy: policy,
        }),
    ).not.toThrow();
  });
});
