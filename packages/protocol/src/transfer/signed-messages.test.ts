import { describe, expect, it } from "vitest";
import { refusal } from "../test-support/refusal.js";
import { chunkSignedMessage, sha256Hex, stateSignedMessage } from "./signed-messages.js";

const text = new TextDecoder();
const request = {
  address: "bob@example.com:2",
  signedAt: 1763780000123,
  streamId: "AAAAAAAAAAAAAAAAAAAAAA",
};
const chunk = { ...request, laneId: 0, seq: 2n ** 64n - 1n };
const body = new TextEncoder().encode("abc");
const abcHash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

describe("sha256Hex", () => {
  it("is lower-hex SHA-256", () => {
    expect(sha256Hex(body)).toBe(abcHash);
  });
});

describe("chunkSignedMessage", () => {
  it("terminates every field with a NUL and hashes the body", () => {
    expect(text.decode(chunkSignedMessage({ ...chunk, body }))).toBe(
      `chunk\0addr=bob@example.com:2\0at=1763780000123\0sid=AAAAAAAAAAAAAAAAAAAAAA\0lane=0\0seq=18446744073709551615\0bodyHash=${abcHash}\0`,
    );
  });

  it("takes the body's hash instead of the body", () => {
    expect(chunkSignedMessage({ ...chunk, bodyHash: abcHash })).toEqual(
      chunkSignedMessage({ ...chunk, body }),
    );
  });

  it("refuses a field with a NUL, so that no field spills into the next", () => {
    for (const bad of [
      { ...chunk, body, address: "bob@example.com:2\0lane=9" },
      { ...chunk, body, streamId: "A\0" },
    ]) {
      expect(refusal(() => chunkSignedMessage(bad)).message).toMatch(/must not contain a NUL byte/);
    }
    expect(refusal(() => stateSignedMessage({ ...request, address: "\0" })).status).toBe(400);
  });

  it("refuses numbers and hashes that have no single decimal or hex form", () => {
    const bad = [
      { ...chunk, body, signedAt: 1.5 },
      { ...chunk, body, laneId: 2 ** 32 },
      { ...chunk, body, laneId: -1 },
      { ...chunk, body, seq: 2n ** 64n },
      { ...chunk, bodyHash: abcHash.toUpperCase() },
      { ...chunk, bodyHash: `${abcHash}\0` },
    ];
    for (const fields of bad) {
      expect(refusal(() => chunkSignedMessage(fields)).code).toBe("SVC_BAD_REQUEST");
    }
  });
});

describe("stateSignedMessage", () => {
  it("signs the GET of the stream's state path", () => {
    expect(text.decode(stateSignedMessage(request))).toBe(
      "control\0addr=bob@example.com:2\0at=1763780000123\0sid=AAAAAAAAAAAAAAAAAAAAAA\0method=GET\0path=/v1/transfer/AAAAAAAAAAAAAAAAAAAAAA/state\0",
    );
  });
});
