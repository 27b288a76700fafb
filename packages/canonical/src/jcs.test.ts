import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { CanonicalError } from "./errors.js";
import rfc8785 from "./fixtures/rfc8785.json" with { type: "json" };
import { canonicalize } from "./jcs.js";

const full = { integersOnly: false };

function ieee754(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CanonicalError);
    return (error as CanonicalError).code;
  }
  return undefined;
}

describe("canonicalize: RFC 8785 vectors", () => {
  it.each(rfc8785.examples)("section $section", ({ input, canonical }) => {
    expect(canonicalize(JSON.parse(input), full)).toBe(canonical);
  });

  it.each(rfc8785.numbers)(
    "Appendix B: $ieee754 -> $serialized",
    ({ ieee754: hex, serialized }) => {
      const value = ieee754(hex);
      if (serialized === null) {
        expect(codeOf(() => canonicalize(value, full))).toBe("INVALID_JSON_VALUE");
      } else {
        expect(canonicalize(value, full)).toBe(serialized);
      }
    },
  );
});

describe("canonicalize: D3 integers only (default)", () => {
  it("accepts safe integers", () => {
    expect(canonicalize([0, -0, 1763780000000, 2 ** 53 - 1, -(2 ** 53 - 1)])).toBe(
      "[0,0,1763780000000,9007199254740991,-9007199254740991]",
    );
  });

  it.each([0.5, 2 ** 53, -(2 ** 53), 1e21, 1e-7])("rejects %d with INVALID_NUMBER", (n) => {
    expect(codeOf(() => canonicalize({ a: [n] }))).toBe("INVALID_NUMBER");
  });
});

describe("canonicalize: values", () => {
  it("escapes only what RFC 8785 requires", () => {
    expect(canonicalize('\u0000\u0008\t\n\u000b\f\r\u001f"\\/\u007f\u00e9\u2028\ud83d\ude00')).toBe(
      '"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f\\"\\\\/\u007f\u00e9\u2028\ud83d\ude00"',
    );
  });

  it("sorts keys by UTF-16 code units, recursively", () => {
    expect(
      canonicalize({
        b: { z: 1, a: [{ y: true, x: null }] },
        a: "",
        "\ud83d\ude00": 0,
        "\uffff": 0,
      }),
    ).toBe('{"a":"","b":{"a":[{"x":null,"y":true}],"z":1},"\ud83d\ude00":0,"\uffff":0}');
  });

  it.each([
    ["undefined", undefined],
    ["undefined member", { a: undefined }],
    ["undefined element", [1, undefined, 2]],
    ["array hole", new Array(2)],
    ["function", () => 1],
    ["bigint", 1n],
    ["symbol", Symbol("s")],
    ["NaN", Number.NaN],
    ["Infinity", Number.NEGATIVE_INFINITY],
    ["Date", new Date(0)],
    ["Uint8Array", new Uint8Array(1)],
    ["lone surrogate", "\ud800"],
    ["lone surrogate key", { "\udc00": 1 }],
    ["deep nesting", JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`)],
  ])("rejects %s with INVALID_JSON_VALUE", (_, value) => {
    expect(codeOf(() => canonicalize(value))).toBe("INVALID_JSON_VALUE");
  });

  it("judges surrogates the same without String.prototype.isWellFormed (older engines)", async () => {
    const native = Object.getOwnPropertyDescriptor(String.prototype, "isWellFormed");
    vi.resetModules();
    Reflect.deleteProperty(String.prototype, "isWellFormed");
    try {
      const { canonicalize: withRegex } = await import("./jcs.js");
      for (const text of ["\ud800", "a\udc00", "\udc00\ud800", "\ud83d"]) {
        expect(() => withRegex(text), text).toThrow("lone surrogate");
      }
      expect(withRegex("\ud83d\ude00 \u00e9")).toBe('"\ud83d\ude00 \u00e9"');
    } finally {
      if (native) Object.defineProperty(String.prototype, "isWellFormed", native);
    }
  });

  it("accepts a null-prototype object and an own __proto__ member", () => {
    const bare = Object.assign(Object.create(null), { b: 1, a: 2 });
    expect(canonicalize(bare)).toBe('{"a":2,"b":1}');
    expect(canonicalize(JSON.parse('{"__proto__":1}'))).toBe('{"__proto__":1}');
  });

  it("rejects bad options with TypeError", () => {
    expect(() => canonicalize(1, null as unknown as object)).toThrow(TypeError);
  });
});

describe("canonicalize: properties", () => {
  const json = fc.jsonValue().filter((v) => !Object.is(v, -0));

  it("is stable: canonicalize(JSON.parse(canonicalize(x))) === canonicalize(x)", () => {
    fc.assert(
      fc.property(json, (value) => {
        const once = canonicalize(value, full);
        expect(canonicalize(JSON.parse(once), full)).toBe(once);
        expect(JSON.parse(once)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("does not depend on key order", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalize(reversed, full)).toBe(canonicalize(record, full));
      }),
    );
  });

  it("matches JSON.stringify for integers and already-sorted keys", () => {
    fc.assert(
      fc.property(fc.array(fc.maxSafeInteger()), fc.string(), (numbers, text) => {
        const value = { a: numbers, b: text };
        expect(canonicalize(value)).toBe(JSON.stringify(value));
      }),
    );
  });
});
