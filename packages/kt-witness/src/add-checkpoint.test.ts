import { encodeBase64 } from "@svc/signed-note";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAddCheckpoint, MAX_PROOF_LINES, parseAddCheckpoint } from "./add-checkpoint.js";
import { WitnessError } from "./errors.js";
import { testLog } from "./test-support/log.js";

const hash = (fill: number) => new Uint8Array(32).fill(fill);
const NOTE =
  "log.example/kt\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n\u2014 log.example/kt AAAA\n";

function refusal(body: string): string {
  try {
    parseAddCheckpoint(body);
  } catch (error) {
    expect(error).toBeInstanceOf(WitnessError);
    expect((error as WitnessError).code).toBe("WITNESS_BAD_REQUEST");
    return (error as WitnessError).message;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe("formatAddCheckpoint / parseAddCheckpoint", () => {
  it("writes the old size, one base64 hash per line, an empty line, then the checkpoint", () => {
    const body = formatAddCheckpoint({ oldSize: 20, proof: [hash(1), hash(2)], checkpoint: NOTE });
    expect(body).toBe(`old 20\n${encodeBase64(hash(1))}\n${encodeBase64(hash(2))}\n\n${NOTE}`);
    expect(parseAddCheckpoint(body)).toEqual({
      oldSize: 20,
      proof: [hash(1), hash(2)],
      checkpoint: NOTE,
    });
    expect(formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: NOTE })).toBe(
      `old 0\n\n${NOTE}`,
    );
  });

  it("reads a real log's body: the proof from @svc/merkle and the signed checkpoint", () => {
    const log = testLog();
    const parsed = parseAddCheckpoint(log.body(13, 37));
    expect(parsed.oldSize).toBe(13);
    expect(parsed.proof).toEqual(log.tree.consistencyProof(13, 37));
    expect(parsed.checkpoint).toBe(log.checkpoint(37));
  });

  it("takes sizes up to 2^53 - 1 and 63 proof lines, and no more", () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(parseAddCheckpoint(`old ${max}\n\n${NOTE}`).oldSize).toBe(max);
    const lines = (n: number) => `${encodeBase64(hash(7))}\n`.repeat(n);
    expect(parseAddCheckpoint(`old 1\n${lines(63)}\n${NOTE}`).proof).toHaveLength(63);
    expect(refusal(`old 1\n${lines(64)}\n${NOTE}`)).toMatch(/more than 63/);
    expect(refusal(`old ${max + 1}\n\n${NOTE}`)).toMatch(/2\^53/);
    expect(refusal(`old 99999999999999999\n\n${NOTE}`)).toMatch(/2\^53/);
  });

  it("refuses every other layout", () => {
    const proofLine = encodeBase64(hash(3));
    for (const body of [
      "",
      "old 1",
      `old 01\n\n${NOTE}`,
      `old -1\n\n${NOTE}`,
      `old 1.0\n\n${NOTE}`,
      `old 1e3\n\n${NOTE}`,
      `old +1\n\n${NOTE}`,
      `Old 1\n\n${NOTE}`,
      `old  1\n\n${NOTE}`,
      `old 1 \n\n${NOTE}`,
      `old\n\n${NOTE}`,
      `old 1\r\n\r\n${NOTE}`,
      `old 1\n${proofLine}\r\n\n${NOTE}`,
      `old 1\n${proofLine} \n\n${NOTE}`,
      `old 1\n${encodeBase64(new Uint8Array(31))}\n\n${NOTE}`,
      `old 1\n${encodeBase64(new Uint8Array(33))}\n\n${NOTE}`,
      `old 1\n${proofLine.slice(0, -1)}\n\n${NOTE}`,
      // Non-zero unused bits: a second spelling of the same bytes.
      `old 1\n${proofLine.slice(0, -2)}N=\n\n${NOTE}`,
      `old 1\n${proofLine}\n${NOTE}`,
      `old 1\n${proofLine}\n`,
      "old 1\n\n",
      `old 1\n\n\n${NOTE}`,
      `old 1\n\n${NOTE.slice(0, -1)}`,
    ]) {
      refusal(body);
    }
  });

  it("round trips every well-formed request", () => {
    const note = fc
      .array(fc.string({ unit: fc.constantFrom(..."ab \u2014+/=0\n"), maxLength: 20 }), {
        minLength: 1,
        maxLength: 6,
      })
      .map((lines) => `x${lines.join("\n")}\n`);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: MAX_PROOF_LINES }),
        note,
        (oldSize, proof, checkpoint) => {
          const body = formatAddCheckpoint({ oldSize, proof, checkpoint });
          expect(parseAddCheckpoint(body)).toEqual({ oldSize, proof, checkpoint });
        },
      ),
    );
  });

  it("throws nothing but WitnessError on any input, and what it accepts it writes back the same", () => {
    const valid = formatAddCheckpoint({
      oldSize: 12,
      proof: [hash(1), hash(200)],
      checkpoint: NOTE,
    });
    const mutated = fc
      .tuple(
        fc.nat({ max: valid.length }),
        fc.nat({ max: 8 }),
        fc.string({ unit: fc.constantFrom(..."old 0129\n\r=+/Aa\u2014 \u0000"), maxLength: 6 }),
      )
      .map(([at, cut, text]) => valid.slice(0, at) + text + valid.slice(at + cut));
    const anything = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      mutated,
      fc.string({ unit: fc.constantFrom(..."old 0123\n=AQ") }),
    );
    fc.assert(
      fc.property(anything, (body) => {
        let parsed: ReturnType<typeof parseAddCheckpoint>;
        try {
          parsed = parseAddCheckpoint(body);
        } catch (error) {
          expect(error).toBeInstanceOf(WitnessError);
          return;
        }
        expect(formatAddCheckpoint(parsed)).toBe(body);
      }),
      { numRuns: 3000 },
    );
  });

  it("says which argument is wrong when formatting", () => {
    const ok = { oldSize: 1, proof: [hash(1)], checkpoint: NOTE };
    expect(() => formatAddCheckpoint({ ...ok, oldSize: -1 })).toThrow(RangeError);
    expect(() => formatAddCheckpoint({ ...ok, oldSize: 1.5 })).toThrow(/oldSize/);
    expect(() => formatAddCheckpoint({ ...ok, oldSize: 2 ** 53 })).toThrow(/oldSize/);
    expect(() => formatAddCheckpoint({ ...ok, proof: [new Uint8Array(31)] })).toThrow(/proof\[0\]/);
    expect(() => formatAddCheckpoint({ ...ok, proof: Array(64).fill(hash(1)) })).toThrow(/63/);
    expect(() => formatAddCheckpoint({ ...ok, checkpoint: "no newline" })).toThrow(TypeError);
    expect(() => formatAddCheckpoint({ ...ok, checkpoint: "\nx\n" })).toThrow(/checkpoint/);
  });
});
