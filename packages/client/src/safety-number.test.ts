import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { decodeBase64, encodeBase64 } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatSafetyNumber,
  identityFingerprint,
  type Party,
  partyDigits,
  SAFETY_NUMBER_ITERATIONS,
  safetyNumber,
} from "./safety-number.js";

const VECTORS = new URL("./fixtures/safety-number-vectors.json", import.meta.url);

interface Vector {
  a: { address: string; identitySigningKey: string; identityDHKey: string };
  b: { address: string; identitySigningKey: string; identityDHKey: string };
  fingerprintA: string;
  fingerprintB: string;
  digitsA: string;
  digitsB: string;
  safetyNumber: string;
}

/** Key bytes anyone can rebuild: 32 bytes counting up from `start`. */
const counting = (start: number) => Uint8Array.from({ length: 32 }, (_, i) => (start + i) & 0xff);

const PAIRS: [string, number, string, number][] = [
  ["alice:1", 1, "bob:1", 101],
  ["alice@example.org:1", 7, "bob@example.org:2", 77],
  ["carol", 200, "dave:3", 0],
];

/** The derivation of docs/protocol.md §16 again, with node:crypto only: a second implementation. */
function independentDigits(address: string, signing: Uint8Array, dh: Uint8Array): string {
  const keys = Buffer.concat([signing, dh]);
  const name = Buffer.from(address, "utf8");
  const length = Buffer.alloc(2);
  length.writeUInt16BE(name.length);
  let hash = createHash("sha512")
    .update(Buffer.from("svc-safety-number-v1\0"))
    .update(keys)
    .update(length)
    .update(name)
    .digest();
  for (let i = 0; i < 5200; i++) hash = createHash("sha512").update(hash).update(keys).digest();
  let digits = "";
  for (let chunk = 0; chunk < 6; chunk++) {
    digits += String(hash.readUIntBE(chunk * 5, 5) % 100000).padStart(5, "0");
  }
  return digits;
}

function independentFingerprint(signing: Uint8Array, dh: Uint8Array): string {
  const hex = createHash("sha256")
    .update(Buffer.from("svc-identity-fingerprint-v1\0"))
    .update(signing)
    .update(dh)
    .digest("hex")
    .slice(0, 32);
  return hex.match(/.{4}/g)?.join(" ") ?? "";
}

function vectorOf([addressA, startA, addressB, startB]: (typeof PAIRS)[number]): Vector {
  const [signingA, dhA, signingB, dhB] = [startA, startA + 32, startB, startB + 32].map(
    counting,
  ) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  const digitsA = independentDigits(addressA, signingA, dhA);
  const digitsB = independentDigits(addressB, signingB, dhB);
  return {
    a: {
      address: addressA,
      identitySigningKey: encodeBase64(signingA),
      identityDHKey: encodeBase64(dhA),
    },
    b: {
      address: addressB,
      identitySigningKey: encodeBase64(signingB),
      identityDHKey: encodeBase64(dhB),
    },
    fingerprintA: independentFingerprint(signingA, dhA),
    fingerprintB: independentFingerprint(signingB, dhB),
    digitsA,
    digitsB,
    safetyNumber: [digitsA, digitsB].sort().join(""),
  };
}

function partyOf(side: Vector["a"]): Party {
  return {
    address: side.address,
    keys: {
      identitySigningKey: decodeBase64(side.identitySigningKey, 32),
      identityDHKey: decodeBase64(side.identityDHKey, 32),
    },
  };
}

describe("fingerprints and safety numbers (docs/protocol.md §16)", () => {
  it("the committed vectors are what a node:crypto implementation computes (UPDATE_SAFETY_VECTORS=1 rewrites them)", () => {
    const generated = { iterations: SAFETY_NUMBER_ITERATIONS, vectors: PAIRS.map(vectorOf) };
    if (process.env.UPDATE_SAFETY_VECTORS === "1") {
      writeFileSync(VECTORS, `${JSON.stringify(generated, null, 2)}\n`);
    }
    expect(JSON.parse(readFileSync(VECTORS, "utf8"))).toEqual(generated);
  });

  it("the portable module reproduces every vector, from either side", () => {
    const { vectors } = JSON.parse(readFileSync(VECTORS, "utf8")) as { vectors: Vector[] };
    for (const vector of vectors) {
      const [a, b] = [partyOf(vector.a), partyOf(vector.b)];
      expect(identityFingerprint(a.keys)).toBe(vector.fingerprintA);
      expect(identityFingerprint(b.keys)).toBe(vector.fingerprintB);
      expect(partyDigits(a)).toBe(vector.digitsA);
      expect(partyDigits(b)).toBe(vector.digitsB);
      expect(safetyNumber(a, b)).toBe(vector.safetyNumber);
      expect(safetyNumber(b, a)).toBe(vector.safetyNumber);
    }
  });

  it("A's number for B is B's number for A, and it changes with either key or address", () => {
    const party = fc.record({
      address: fc.constantFrom("alice:1", "bob:1", "carol@example.org:2"),
      keys: fc.record({
        identitySigningKey: fc.uint8Array({ minLength: 32, maxLength: 32 }),
        identityDHKey: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      }),
    });
    fc.assert(
      fc.property(party, party, (a, b) => {
        const number = safetyNumber(a, b);
        expect(number).toMatch(/^\d{60}$/);
        expect(safetyNumber(b, a)).toBe(number);
        const changed = {
          ...b,
          keys: { ...b.keys, identityDHKey: b.keys.identityDHKey.map((x) => x ^ 1) },
        };
        expect(safetyNumber(a, changed)).not.toBe(number);
      }),
      { numRuns: 5 },
    );
  });

  it("addresses are normalized first (D2), and keys must be 32 bytes", () => {
    const keys = { identitySigningKey: counting(1), identityDHKey: counting(33) };
    expect(partyDigits({ address: "\uff41lice:1", keys })).toBe(
      partyDigits({ address: "alice:1", keys }),
    );
    expect(() => identityFingerprint({ ...keys, identityDHKey: new Uint8Array(31) })).toThrow(
      RangeError,
    );
  });

  it("prints 12 groups of 5 digits in 3 lines", () => {
    const digits = "0123456789".repeat(6);
    expect(formatSafetyNumber(digits)).toBe(
      "01234 56789 01234 56789\n01234 56789 01234 56789\n01234 56789 01234 56789",
    );
  });
});
