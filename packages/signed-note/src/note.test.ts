import { ed25519 } from "@noble/curves/ed25519.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  COSIGNATURE_V1_TYPE,
  cosign,
  cosignedMessage,
  ED25519_TYPE,
  formatCheckpoint,
  formatSignerKey,
  formatVerifierKey,
  MAX_NOTE_BYTES,
  MAX_TIMESTAMP,
  openNote,
  openNoteAsync,
  parseNote,
  parseSignerKey,
  parseVerifierKey,
  type SignedNoteError,
  signedMessage,
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

describe("parseNote / signedMessage / openNoteAsync", () => {
  const logSecret = new Uint8Array(32).fill(3);
  const witnessSecret = new Uint8Array(32).fill(4);
  const log = keys("log.example/kt", logSecret);
  const witness = parseVerifierKey(
    formatVerifierKey("w.example", ed25519.getPublicKey(witnessSecret), COSIGNATURE_V1_TYPE),
  );
  const checkpoint = formatCheckpoint({
    origin: "log.example/kt",
    size: 5,
    rootHash: new Uint8Array(32),
  });
  const note =
    signNote(checkpoint, [log.signer]) + cosign(checkpoint, "w.example", witnessSecret, 1700000000);
  /** noble's Ed25519 behind a promise, as WebCrypto would answer. */
  const asyncVerify = async (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) =>
    ed25519.verify(signature, message, publicKey, { zip215: false });

  async function codeOfAsync(work: Promise<unknown>): Promise<string | undefined> {
    try {
      await work;
    } catch (error) {
      return (error as SignedNoteError).code;
    }
    return undefined;
  }

  it("splits a note into its text and lines, verifying nothing", () => {
    const parsed = parseNote(note);
    expect(parsed.text).toBe(checkpoint);
    expect(parsed.lines.map((l) => [l.name, l.keyId, l.signature.length])).toEqual([
      ["log.example/kt", log.verifier.keyId, 64],
      ["w.example", witness.keyId, 72],
    ]);
    expect(note).toContain(`— w.example ${parsed.lines[1]?.encoded}\n`);
    // A signature that would not verify still parses: parseNote checks the layout only.
    const garbage = `${checkpoint}\n— log.example/kt ${btoa("\u0000".repeat(68))}\n`;
    expect(parseNote(garbage).lines[0]?.signature).toEqual(new Uint8Array(64));
    expect(codeOf(() => openNote(garbage, [log.verifier]))).toBe("NOTE_UNVERIFIED");
  });

  it("refuses what openNote refuses as malformed, with the same codes", () => {
    const bad = [
      note.replace("kt\n", "k\tt\n"),
      note.replace("— w", "- w"),
      note.slice(0, -1),
      `${note}\n`,
      checkpoint,
      `${checkpoint}\n${"— log.example/kt AAAAAAAA\n".repeat(101)}`,
    ];
    for (const text of bad) {
      const code = codeOf(() => parseNote(text));
      expect(code).toMatch(/^NOTE_(MALFORMED|TOO_MANY_SIGNATURES)$/);
      expect(codeOf(() => openNote(text, [log.verifier]))).toBe(code);
    }
    expect(codeOf(() => parseNote(42 as unknown as string))).toBe("NOTE_MALFORMED");
  });

  it("names what each signature type signs", () => {
    const [logLine, witnessLine] = parseNote(note).lines;
    const plain = signedMessage(ED25519_TYPE, checkpoint, logLine?.signature as Uint8Array);
    expect(plain?.message).toEqual(utf8.encode(checkpoint));
    expect(plain?.timestamp).toBeUndefined();
    expect(
      ed25519.verify(
        plain?.signature as Uint8Array,
        plain?.message as Uint8Array,
        log.verifier.publicKey,
      ),
    ).toBe(true);
    const cosigned = signedMessage(
      COSIGNATURE_V1_TYPE,
      checkpoint,
      witnessLine?.signature as Uint8Array,
    );
    expect(cosigned?.timestamp).toBe(1700000000n);
    expect(cosigned?.message).toEqual(cosignedMessage(checkpoint, 1700000000n));
    expect(cosigned?.signature.length).toBe(64);
    // The wrong length for the type, or a timestamp past 2^63 - 1: no signature of that type.
    expect(
      signedMessage(ED25519_TYPE, checkpoint, witnessLine?.signature as Uint8Array),
    ).toBeUndefined();
    expect(
      signedMessage(COSIGNATURE_V1_TYPE, checkpoint, logLine?.signature as Uint8Array),
    ).toBeUndefined();
    const late = new Uint8Array(72);
    new DataView(late.buffer).setBigUint64(0, MAX_TIMESTAMP + 1n);
    expect(signedMessage(COSIGNATURE_V1_TYPE, checkpoint, late)).toBeUndefined();
    new DataView(late.buffer).setBigUint64(0, MAX_TIMESTAMP);
    expect(signedMessage(COSIGNATURE_V1_TYPE, checkpoint, late)?.timestamp).toBe(MAX_TIMESTAMP);
  });

  it("opens with another verifier exactly as openNote does, for every flipped bit", async () => {
    const bytes = utf8.encode(note);
    const trusted = [log.verifier, witness];
    const outcome = (f: () => unknown) => {
      try {
        return JSON.stringify(f());
      } catch (error) {
        return (error as SignedNoteError).code;
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.nat(bytes.length * 8 - 1), async (bit) => {
        const flipped = bytes.slice();
        flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
        const sync = outcome(() => openNote(flipped, trusted));
        let async: string;
        try {
          async = JSON.stringify(await openNoteAsync(flipped, trusted, asyncVerify));
        } catch (error) {
          async = (error as SignedNoteError).code;
        }
        expect(async).toBe(sync);
      }),
      { numRuns: 150 },
    );
    const opened = await openNoteAsync(note, trusted, asyncVerify);
    expect(opened.signatures.map((s) => [s.name, s.timestamp])).toEqual([
      ["log.example/kt", undefined],
      ["w.example", 1700000000n],
    ]);
  });

  it("uses the verifier it is given, and only for trusted keys' lines", async () => {
    const calls: number[] = [];
    const refuseAll = (signature: Uint8Array) => {
      calls.push(signature.length);
      return false;
    };
    expect(await codeOfAsync(openNoteAsync(note, [log.verifier, witness], refuseAll))).toBe(
      "NOTE_INVALID_SIGNATURE",
    );
    expect(calls).toEqual([64, 64]);
    calls.length = 0;
    const opened = await openNoteAsync(note, [log.verifier], (s, m, k) => {
      calls.push(s.length);
      return ed25519.verify(s, m, k);
    });
    expect(calls).toEqual([64]);
    expect(opened.unknown.map((u) => u.name)).toEqual(["w.example"]);
    expect(await codeOfAsync(openNoteAsync(note, [], asyncVerify))).toBe("NOTE_UNVERIFIED");
  });
});
