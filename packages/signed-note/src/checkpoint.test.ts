import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCheckpoint, parseCheckpoint } from "./index.js";
import { codeOf } from "./test-support/error-code.js";

const HASH = "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=";
const line = fc.string({ unit: fc.constantFrom(..."ab/.:Z09 +=—é"), minLength: 1, maxLength: 20 });

describe("checkpoints", () => {
  it("round-trips origin, size, root hash and extension lines", () => {
    fc.assert(
      fc.property(
        line,
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.array(line, { maxLength: 3 }),
        (origin, size, rootHash, extensions) => {
          const text = formatCheckpoint({ origin, size, rootHash, extensions });
          expect(parseCheckpoint(text)).toEqual({ origin, size, rootHash, extensions });
        },
      ),
    );
  });

  it("keeps extension lines in order", () => {
    const text = `log.example\n7\n${HASH}\next one\next two\n`;
    expect(parseCheckpoint(text).extensions).toEqual(["ext one", "ext two"]);
    expect(formatCheckpoint({ ...parseCheckpoint(text) })).toBe(text);
    expect(formatCheckpoint({ origin: "o", size: 3, rootHash: new Uint8Array(32) })).toBe(
      "o\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
    );
  });

  it("refuses anything else", () => {
    const bad = [
      `log.example\n7\n${HASH}`,
      `log.example\n7\n`,
      `\n7\n${HASH}\n`,
      `log.example\n07\n${HASH}\n`,
      `log.example\n-1\n${HASH}\n`,
      `log.example\n+7\n${HASH}\n`,
      `log.example\n 7\n${HASH}\n`,
      `log.example\n18446744073709551616\n${HASH}\n`,
      `log.example\n7\n${HASH.slice(0, -1)}\n`,
      `log.example\n7\n${HASH.slice(4)}\n`,
      `log.example\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2J=\n`,
      `log.example\n7\n${HASH}\n\n`,
      `log.example\n7\n${HASH}\next\n\n`,
      `log.example\n7\n${HASH}\nex\tt\n`,
    ];
    for (const text of bad)
      expect(
        codeOf(() => parseCheckpoint(text)),
        text,
      ).toBe("CHECKPOINT_MALFORMED");
    expect(parseCheckpoint(`log.example\n18446744073709551615\n${HASH}\n`).size).toBe(
      (1n << 64n) - 1n,
    );
    expect(parseCheckpoint(`log.example\n0\n${HASH}\n`).size).toBe(0n);
    const rootHash = new Uint8Array(32);
    for (const c of [
      { origin: "", size: 1, rootHash },
      { origin: "a\nb", size: 1, rootHash },
      { origin: "o", size: -1, rootHash },
      { origin: "o", size: 1.5, rootHash },
      { origin: "o", size: 1n << 64n, rootHash },
      { origin: "o", size: 1, rootHash: new Uint8Array(31) },
      { origin: "o", size: 1, rootHash, extensions: [""] },
      { origin: "o", size: 1, rootHash, extensions: ["a\nb"] },
    ]) {
      expect(codeOf(() => formatCheckpoint(c))).toBe("CHECKPOINT_MALFORMED");
    }
  });
});
