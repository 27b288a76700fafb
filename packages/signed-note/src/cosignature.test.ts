import { ed25519 } from "@noble/curves/ed25519.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  COSIGNATURE_V1_TYPE,
  cosign,
  cosignedMessage,
  decodeBase64,
  formatCheckpoint,
  formatSignerKey,
  formatVerifierKey,
  keyId,
  openNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
} from "./index.js";
import { keyName, seed } from "./test-support/arbitraries.js";
import { codeOf } from "./test-support/error-code.js";

const logSeed = new Uint8Array(32).fill(3);
const log = parseSignerKey(formatSignerKey("log.example/kt", logSeed));
const logVerifier = parseVerifierKey(formatVerifierKey(log.name, log.publicKey));
const checkpoint = formatCheckpoint({
  origin: "log.example/kt",
  size: 20852163,
  rootHash: new Uint8Array(32).fill(9),
});
const signed = signNote(checkpoint, [log]);

describe("cosignature/v1", () => {
  it("lays out key ID, big-endian timestamp and the signature of the cosigned message", () => {
    const secret = new Uint8Array(32).fill(5);
    const publicKey = ed25519.getPublicKey(secret);
    const line = cosign(checkpoint, "witness.example/w1", secret, 1679315147);
    expect(line.startsWith("— witness.example/w1 ")).toBe(true);
    const bytes = decodeBase64(line.slice("— witness.example/w1 ".length, -1)) as Uint8Array;
    expect(bytes.length).toBe(4 + 8 + 64);
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(0)).toBe(keyId("witness.example/w1", COSIGNATURE_V1_TYPE, publicKey));
    expect(view.getBigUint64(4)).toBe(1679315147n);
    const message = cosignedMessage(checkpoint, 1679315147n);
    expect(new TextDecoder().decode(message)).toBe(
      `cosignature/v1\ntime 1679315147\n${checkpoint}`,
    );
    expect(ed25519.verify(bytes.subarray(12), message, publicKey)).toBe(true);
  });

  it("verifies in openNote with the timestamp, beside the log's signature", () => {
    fc.assert(
      fc.property(
        keyName,
        seed,
        fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }),
        (name, secret, time) => {
          const witness = parseVerifierKey(
            formatVerifierKey(name, ed25519.getPublicKey(secret), COSIGNATURE_V1_TYPE),
          );
          const note = signed + cosign(checkpoint, name, secret, time);
          const opened = openNote(note, [logVerifier, witness]);
          expect(opened.text).toBe(checkpoint);
          expect(opened.signatures.map((s) => [s.key, s.timestamp])).toEqual([
            [logVerifier, undefined],
            [witness, time],
          ]);
          // Unknown to a client that trusts only the log.
          expect(openNote(note, [logVerifier]).unknown.map((u) => u.name)).toEqual([name]);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("refuses a changed timestamp, checkpoint or signature, and an Ed25519 key for a cosigner", () => {
    const secret = new Uint8Array(32).fill(6);
    const publicKey = ed25519.getPublicKey(secret);
    const witness = parseVerifierKey(formatVerifierKey("w", publicKey, COSIGNATURE_V1_TYPE));
    const line = cosign(checkpoint, "w", secret, 100);
    const bytes = decodeBase64(line.slice(4, -1)) as Uint8Array;
    for (const at of [11, 12, 40, 75]) {
      const flipped = bytes.slice();
      flipped[at] = (flipped[at] as number) ^ 1;
      const bad = `${signed}— w ${btoa(String.fromCharCode(...flipped))}\n`;
      expect(codeOf(() => openNote(bad, [logVerifier, witness]))).toBe("NOTE_INVALID_SIGNATURE");
    }
    const other = formatCheckpoint({
      origin: "log.example/kt",
      size: 1,
      rootHash: new Uint8Array(32),
    });
    expect(codeOf(() => openNote(signNote(other, [log]) + line, [logVerifier, witness]))).toBe(
      "NOTE_INVALID_SIGNATURE",
    );
    // The same key as a plain signer has another key ID: the cosignature is unknown to it.
    const plain = parseVerifierKey(formatVerifierKey("w", publicKey));
    expect(openNote(signed + line, [logVerifier, plain]).unknown).toHaveLength(1);
    expect(codeOf(() => cosign(checkpoint, "w", secret, -1))).toBe("NOTE_MALFORMED");
    expect(codeOf(() => cosign(checkpoint, "w", secret, 1n << 63n))).toBe("NOTE_MALFORMED");
    expect(codeOf(() => cosign(checkpoint, "w", secret, 1.5))).toBe("NOTE_MALFORMED");
    expect(codeOf(() => cosign(checkpoint, "a b", secret, 1))).toBe("NOTE_MALFORMED");
  });
});
