import { describe, expect, it } from "vitest";
import { concatBytes, equalBytes, u64be } from "./bytes.js";
import { bytesToHex as hex } from "./hex.js";

describe("u64be", () => {
  it.each([
    [0, "0000000000000000"],
    [1, "0000000000000001"],
    [5, "0000000000000005"],
    [0xffffffff, "00000000ffffffff"],
    [2 ** 32, "0000000100000000"],
    [1763780000000, "0000019aa97af900"],
    [Number.MAX_SAFE_INTEGER, "001fffffffffffff"],
  ])("encodes %d", (n, expected) => {
    expect(hex(u64be(n))).toBe(expected);
  });

  it("rejects values that are not non-negative safe integers", () => {
    expect(() => u64be(-1)).toThrow(RangeError);
    expect(() => u64be(1.5)).toThrow(RangeError);
    expect(() => u64be(2 ** 53)).toThrow(RangeError);
    expect(() => u64be(Number.NaN)).toThrow(RangeError);
    expect(() => u64be("1" as unknown as number)).toThrow(TypeError);
  });
});

describe("concatBytes", () => {
  it("joins arrays in order", () => {
    expect(concatBytes()).toEqual(new Uint8Array(0));
    expect(concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3))).toEqual(
      Uint8Array.of(1, 2, 3),
    );
  });

  it("returns a fresh array", () => {
    const a = Uint8Array.of(7);
    const out = concatBytes(a);
    out[0] = 9;
    expect(a[0]).toBe(7);
  });

  it("names the bad argument", () => {
    expect(() => concatBytes(Uint8Array.of(1), [2] as unknown as Uint8Array)).toThrow(
      /arrays\[1\]/,
    );
  });
});

describe("equalBytes", () => {
  it("compares contents and lengths", () => {
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1))).toBe(false);
    expect(equalBytes(new Uint8Array(0), new Uint8Array(0))).toBe(true);
  });

  it("rejects non-byte arguments", () => {
    expect(() => equalBytes("ab" as unknown as Uint8Array, Uint8Array.of(1))).toThrow(TypeError);
    expect(() => equalBytes(Uint8Array.of(1), null as unknown as Uint8Array)).toThrow(TypeError);
  });
});
