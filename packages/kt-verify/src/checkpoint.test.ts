import { encodeBase64 } from "@svc/canonical";
import { formatCheckpoint, parseCheckpoint } from "@svc/signed-note";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkpointText, defaultOrigin } from "./checkpoint.js";
import { logIdOf } from "./sth.js";
import { key32 } from "./test-support/fake-log.js";

const head = { treeSize: 3, rootHash: key32(1), indexRoot: key32(2) };

describe("checkpointText", () => {
  it("is origin, size, base64 root hash and the indexRoot extension line", () => {
    expect(checkpointText("svc-kt/0123456789abcdef", head)).toBe(
      "svc-kt/0123456789abcdef\n3\n" +
        "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\n" +
        "indexRoot AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=\n",
    );
  });

  it("is signed-note's formatCheckpoint, and parses back to the tree head", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (treeSize, rootHash, indexRoot) => {
          const text = checkpointText("log.example/kt", { treeSize, rootHash, indexRoot });
          const extensions = [`indexRoot ${encodeBase64(indexRoot)}`];
          expect(text).toBe(
            formatCheckpoint({ origin: "log.example/kt", size: treeSize, rootHash, extensions }),
          );
          expect(parseCheckpoint(text)).toEqual({
            origin: "log.example/kt",
            size: BigInt(treeSize),
            rootHash,
            extensions,
          });
        },
      ),
      { numRuns: 50 },
    );
  });

  it("refuses a bad origin or tree head, naming it", () => {
    for (const origin of ["", "a b", "a+b", "a\u0001b", "a\nb"]) {
      expect(() => checkpointText(origin, head)).toThrow(RangeError);
    }
    expect(() => checkpointText(42 as unknown as string, head)).toThrow(TypeError);
    expect(() => checkpointText("o", null as never)).toThrow(TypeError);
    expect(() => checkpointText("o", { ...head, treeSize: -1 })).toThrow(/sth.treeSize/);
    expect(() => checkpointText("o", { ...head, treeSize: 1.5 })).toThrow(RangeError);
    expect(() => checkpointText("o", { ...head, rootHash: key32(1).subarray(1) })).toThrow(
      /sth.rootHash must be 32 bytes/,
    );
    expect(() => checkpointText("o", { ...head, indexRoot: "x" as never })).toThrow(TypeError);
  });
});

describe("defaultOrigin", () => {
  it("is svc-kt/ and the hex of the logId's first 8 bytes", () => {
    const logId = Uint8Array.from({ length: 32 }, (_, i) => i * 17);
    expect(defaultOrigin(logId)).toBe("svc-kt/0011223344556677");
    // The kt-vectors.json operator key's log (logId rR5nRzRvVh5s...).
    const publicKey = Uint8Array.from(atob("jeL5fv/oCkwVVHOakH2z6JmtgEym7Tt/9wTo2qcmTow="), (c) =>
      c.charCodeAt(0),
    );
    expect(defaultOrigin(logIdOf(publicKey))).toBe("svc-kt/ad1e6747346f561e");
  });

  it("refuses anything but 32 bytes", () => {
    expect(() => defaultOrigin(new Uint8Array(8))).toThrow(RangeError);
    expect(() => defaultOrigin("abc" as never)).toThrow(TypeError);
  });
});
