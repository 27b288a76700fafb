import { ed25519 } from "@noble/curves/ed25519.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  COSIGNATURE_V1_TYPE,
  formatSignerKey,
  formatVerifierKey,
  MAX_NOTE_BYTES,
  openNote,
  parseSignerKey,
  parseVerifierKey,
  type SignedNoteError,
  signNote,
} from "./index.js";
import { keyName, noteText, seed } from "./test-support/arbitraries.js";
import { codeOf } from "./test-support/error-code.js";

const utf8 = new TextEncoder();

function keys(name: string, secret: Uint8Array) {
  const signer = parseSignerKey(formatSignerKey(name, secret));
  const verifier = parseVerifierKey(formatVerifierKey(name, ed25519.getPublicKey(secret)));
  return { signer, verifier };
}

describe("signNote / openNote", () => {
  it("round-trips: the text comes back, each signer verified once, in order", () => {
    fc.assert(
      fc.property(
        noteText,
        fc.uniqueArray(keyName, { minLength: 1, maxLength: 3 }),
        seed,
        (text, names, secret) => {
          const pairs = names.map((name, i) =>
            keys(
              name,
              secret.map((b) => b ^ i),
            ),
          );
          const note = signNote(
            text,
            pairs.map((p) => p.signer),
          );
          const opened = openNote(
            utf8.encode(note),
            pairs.map((p) => p.verifier),
          );
          expect(opened.text).toBe(text);
          expect(opened.signatures.map((s) => s.name)).toEqual(names);
          expect(opened.unknown).toEqual([]);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("refuses any flipped bit of the text or the signature", () => {
    fc.assert(
      fc.property(
        noteText,
        keyName,
        seed,
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        (text, name, secret, at, bit) => {
          const { signer, verifier } = keys(name, secret);
          const bytes = utf8.encode(signNote(text, [signer]));
          const line = utf8.encode(`— ${name} `).length;
          const textBytes = utf8.encode(text).length;
          // Every byte of the text, or of the base64 signature (not its final newline).
          const candidates = [
            ...Array.from({ length: textBytes }, (_, i) => i),
            ...Array.from(
              { length: bytes.length - textBytes - 2 - line },
              (_, i) => textBytes + 1 + line + i,
            ),
          ];
          const index = candidates[at % candidates.length] as number;
          const flipped = bytes.slice();
          flipped[index] = (flipped[index] as number) ^ (1 << bit);
          let code: string | undefined;
          try {
            const opened = openNote(flipped, [verifier]);
            code = `opened ${JSON.stringify(opened.text)}`;
          } catch (error) {
            code = (error as SignedNoteError).code;
          }
          // A malformed note, an invalid signature, or (a flipped key ID) no trusted signature.
          expect(["NOTE_MALFORMED", "NOTE_INVALID_SIGNATURE", "NOTE_UNVERIFIED"]).toContain(code);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reports keys it does not trust, never as verified", () => {
    fc.assert(
      fc.property(noteText, keyName, keyName, seed, (text, name, otherName, secret) => {
        const trusted = keys(name, secret);
        const other = keys(
          otherName,
          secret.map((b) => b ^ 0xff),
        );
        const note = signNote(text, [trusted.signer, other.signer]);
        const opened = openNote(note, [trusted.verifier]);
        expect(opened.signatures.map((s) => s.key)).toEqual([trusted.verifier]);
        expect(opened.unknown.map((u) => [u.name, u.keyId])).toEqual([
          [otherName, other.signer.keyId],
        ]);
        expect(codeOf(() => openNote(note, [other.verifier, trusted.verifier].slice(0, 0)))).toBe(
          "NOTE_UNVERIFIED",
        );
        expect(codeOf(() => signNote(text, []).length)).toBeUndefined();
        expect(codeOf(() => openNote(signNote(text, [other.signer]), [trusted.verifier]))).toBe(
          "NOTE_UNVERIFIED",
        );
      }),
      { numRuns: 30 },
    );
  });

  it("does not take a plain signature for a cosignature of the same key and name", () => {
    const secret = new Uint8Array(32).fill(7);
    const { signer } = keys("log.example", secret);
    const asCosigner = parseVerifierKey(
      formatVerifierKey("log.example", ed25519.getPublicKey(secret), COSIGNATURE_V1_TYPE),
    );
    expect(asCosigner.keyId).not.toBe(signer.keyId);
    expect(codeOf(() => openNote(signNote("x\n", [signer]), [asCosigner]))).toBe("NOTE_UNVERIFIED");
  });

  it("refuses malformed notes and text", () => {
    const { signer, verifier } = keys("k", new Uint8Array(32).fill(1));
    const good = signNote("hello\n", [signer]);
    expect(openNote(good, [verifier]).text).toBe("hello\n");
    const malformed = [
      good.replace("hello", "hel\tlo"),
      good.replace("hello", "hel\rlo"),
      good.replace("hello", "hel\u007flo"),
      good.replace("— ", "- "),
      good.replace("— ", "—  "),
      good.replace("— k ", "— k+ "),
      good.slice(0, -1),
      `${good}\n`,
      good.replace(/=?\n$/, "\n"),
    ];
    // One more blank line belongs to the text, which the signature then does not cover.
    expect(codeOf(() => openNote(good.replace("\n\n", "\n\n\n"), [verifier]))).toBe(
      "NOTE_INVALID_SIGNATURE",
    );
    for (const note of malformed) {
      expect(codeOf(() => openNote(note, [verifier]))).toBe("NOTE_MALFORMED");
    }
    expect(codeOf(() => openNote(new Uint8Array(MAX_NOTE_BYTES + 1), [verifier]))).toBe(
      "NOTE_MALFORMED",
    );
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode(good)]);
    expect(codeOf(() => openNote(bom, [verifier]))).toBe("NOTE_INVALID_SIGNATURE");
    for (const text of ["", "no newline", "a\u0000\n", "bad \ud800\n"]) {
      expect(codeOf(() => signNote(text, [signer]))).toBe("NOTE_MALFORMED");
    }
    expect(signNote("a\n\nb\n", [signer])).toMatch(/^a\n\nb\n\n— k /);
    expect(openNote(signNote("a\n\nb\n", [signer]), [verifier]).text).toBe("a\n\nb\n");
  });
});
