import { describe, expect, it } from "vitest";
import vectors from "./fixtures/go-note-vectors.json" with { type: "json" };
import {
  cosignedMessage,
  formatCheckpoint,
  formatKeyId,
  formatSignerKey,
  formatVerifierKey,
  openNote,
  parseCheckpoint,
  parseSignerKey,
  parseVerifierKey,
  signNote,
} from "./index.js";
import { codeOf } from "./test-support/error-code.js";

const peter = parseVerifierKey(vectors.peterVkey);
const enoch = parseVerifierKey(vectors.enochVkey);
const utf8 = new TextEncoder();

describe("Go's sumdb/note vectors", () => {
  it("parses and re-formats the verifier and signer keys", () => {
    expect(peter.name).toBe("PeterNeumann");
    expect(formatKeyId(peter.keyId)).toBe(vectors.peterKeyId);
    expect(formatKeyId(enoch.keyId)).toBe(vectors.enochKeyId);
    expect(formatVerifierKey(peter.name, peter.publicKey)).toBe(vectors.peterVkey);
    const signer = parseSignerKey(vectors.peterSkey);
    expect(signer.keyId).toBe(peter.keyId);
    expect(signer.publicKey).toEqual(peter.publicKey);
    expect(formatSignerKey(signer.name, signer.seed)).toBe(vectors.peterSkey);
  });

  it("refuses every substring and every incremented byte of the keys (TestNewVerifier, TestNewSigner)", () => {
    for (const [key, parse] of [
      [vectors.peterVkey, parseVerifierKey],
      [vectors.peterSkey, parseSignerKey],
    ] as const) {
      for (let i = 0; i <= key.length; i++) {
        for (let j = i + 1; j <= key.length; j++) {
          if (i !== 0 || j !== key.length) {
            expect(codeOf(() => parse(key.slice(i, j)))).toBe("KEY_MALFORMED");
          }
        }
      }
      for (let i = 0; i < key.length; i++) {
        const mangled =
          key.slice(0, i) + String.fromCharCode(key.charCodeAt(i) + 1) + key.slice(i + 1);
        expect(codeOf(() => parse(mangled))).toBe("KEY_MALFORMED");
      }
    }
    for (const bad of vectors.badVerifierKeys) {
      expect(codeOf(() => parseVerifierKey(bad))).toBe("KEY_MALFORMED");
    }
  });

  it("signs the text byte for byte as Go does (TestSign)", () => {
    expect(signNote(vectors.text, [parseSignerKey(vectors.peterSkey)])).toBe(vectors.signedByPeter);
  });

  it("opens with one key trusted, both, or none (TestOpen)", () => {
    const note = `${vectors.text}\n${vectors.peterSignatureLine}${vectors.enochSignatureLine}`;
    const one = openNote(utf8.encode(note), [peter]);
    expect(one.text).toBe(vectors.text);
    expect(one.signatures.map((s) => s.name)).toEqual(["PeterNeumann"]);
    expect(one.signatures[0]?.key).toBe(peter);
    expect(one.unknown).toEqual([
      {
        name: "EnochRoot",
        keyId: enoch.keyId,
        signature: vectors.enochSignatureLine.slice("— EnochRoot ".length, -1),
      },
    ]);
    const both = openNote(note, [peter, enoch]);
    expect(both.signatures.map((s) => s.name)).toEqual(["PeterNeumann", "EnochRoot"]);
    expect(both.unknown).toEqual([]);
    expect(codeOf(() => openNote(note, []))).toBe("NOTE_UNVERIFIED");
  });

  it("refuses ambiguous keys only when used, and too many signatures", () => {
    const enochTwin = { ...enoch, publicKey: peter.publicKey };
    expect(
      codeOf(() =>
        openNote(`${vectors.text}\n${vectors.enochSignatureLine}`, [enoch, peter, enochTwin]),
      ),
    ).toBe("NOTE_AMBIGUOUS_KEY");
    expect(openNote(vectors.signedByPeter, [enoch, peter, enochTwin]).signatures).toHaveLength(1);
    const many = `${vectors.text}\n${vectors.peterSignatureLine.repeat(101)}`;
    expect(codeOf(() => openNote(many, [peter]))).toBe("NOTE_TOO_MANY_SIGNATURES");
    expect(codeOf(() => openNote(many, []))).toBe("NOTE_TOO_MANY_SIGNATURES");
    const hundred = openNote(`${vectors.text}\n${vectors.peterSignatureLine.repeat(100)}`, [peter]);
    expect(hundred.signatures).toHaveLength(1);
  });

  it("refuses an invalid signature by a trusted key, keeps distinct unknown lines", () => {
    const line = vectors.peterSignatureLine;
    const bad = `${vectors.text}\n${line.slice(0, 60)}ABCD${line.slice(60)}`;
    expect(codeOf(() => openNote(bad, [peter]))).toBe("NOTE_INVALID_SIGNATURE");
    const enochLine = vectors.enochSignatureLine;
    const enochAbcd = `${enochLine.slice(0, 60)}ABCD${enochLine.slice(60)}`;
    const opened = openNote(`${vectors.text}\n${line}${line}${enochLine}${enochLine}${enochAbcd}`, [
      peter,
    ]);
    expect(opened.signatures).toHaveLength(1);
    expect(opened.unknown).toHaveLength(2);
  });

  it("refuses Go's malformed notes, and a byte 0xff", () => {
    for (const bad of vectors.badNotes) {
      expect(codeOf(() => openNote(bad, [peter]))).toBe("NOTE_MALFORMED");
    }
    const invalidUtf8 = new Uint8Array([0xff, ...utf8.encode(vectors.signedByPeter)]);
    expect(codeOf(() => openNote(invalidUtf8, [peter]))).toBe("NOTE_MALFORMED");
  });
});

describe("the C2SP tlog-cosignature example checkpoint", () => {
  const example = vectors.checkpointExample;
  it("parses and formats its body", () => {
    const checkpoint = parseCheckpoint(example.text);
    expect(checkpoint.origin).toBe(example.origin);
    expect(checkpoint.size).toBe(BigInt(example.size));
    expect(checkpoint.extensions).toEqual([]);
    expect(formatCheckpoint(checkpoint)).toBe(example.text);
  });
  it("spells the cosigned message as the spec does", () => {
    expect(new TextDecoder().decode(cosignedMessage(example.text, BigInt(example.timestamp)))).toBe(
      example.cosignedMessage,
    );
  });
});
