import { CanonicalError } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bridgeQueryMessage,
  bridgeQueryParams,
  parseWatched,
  presenceQueryMessage,
  presenceQueryParams,
} from "./signed-query.js";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("bridgeQueryMessage", () => {
  it.each(["stream", "poll", "ws"] as const)("binds kind %s; since defaults to 0", (kind) => {
    expect(text(bridgeQueryMessage({ address: "a:1", kind, signedAt: 5 }))).toBe(
      `{"address":"a:1","kind":"${kind}","signedAt":5,"since":0}`,
    );
  });

  it("rejects non-integer numbers with INVALID_NUMBER", () => {
    expect(() =>
      bridgeQueryMessage({ address: "a", kind: "poll", since: 0.5, signedAt: 1 }),
    ).toThrow(CanonicalError);
  });

  it("rejects caller mistakes", () => {
    expect(() =>
      bridgeQueryMessage({ address: "a", kind: "presence" as "ws", signedAt: 1 }),
    ).toThrow(RangeError);
    expect(() =>
      bridgeQueryMessage({ address: 1 as unknown as string, kind: "ws", signedAt: 1 }),
    ).toThrow(TypeError);
  });
});

describe("presenceQueryMessage", () => {
  it("signs watched sorted by UTF-16 code units without changing the input", () => {
    const watched = ["b", "B", "a:1", "\u00e9"];
    expect(text(presenceQueryMessage({ address: "w", watched, signedAt: 1 }))).toBe(
      '{"address":"w","kind":"presence","signedAt":1,"watched":["B","a:1","b","\u00e9"]}',
    );
    expect(watched).toEqual(["b", "B", "a:1", "\u00e9"]);
  });

  it("does not depend on the order of watched", () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (watched) => {
        const reversed = [...watched].reverse();
        expect(presenceQueryMessage({ address: "w", watched: reversed, signedAt: 1 })).toEqual(
          presenceQueryMessage({ address: "w", watched, signedAt: 1 }),
        );
      }),
    );
  });

  it("rejects a non-array watched", () => {
    expect(() =>
      presenceQueryMessage({ address: "w", watched: "a,b" as unknown as string[], signedAt: 1 }),
    ).toThrow(TypeError);
  });
});

describe("parseWatched", () => {
  it("splits, normalizes and keeps wire order", () => {
    expect(parseWatched("")).toEqual([]);
    expect(parseWatched("carol:9,\uff42\uff4f\uff42:2")).toEqual(["carol:9", "bob:2"]);
  });

  it.each(["a,,b", ",", "a,", "a, b", "a;b"])("rejects %j with INVALID_ADDRESS", (wire) => {
    try {
      parseWatched(wire);
      expect.unreachable();
    } catch (error) {
      expect((error as CanonicalError).code).toBe("INVALID_ADDRESS");
    }
  });

  it("rejects a non-string with TypeError", () => {
    expect(() => parseWatched(undefined as unknown as string)).toThrow(TypeError);
  });
});

describe("bridgeQueryParams and presenceQueryParams", () => {
  const sign = (message: Uint8Array) => message.slice(0, 3);
  const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

  it("send a bridge query's fields in wire order with the signature over its payload", () => {
    const query = { address: "a:1", kind: "poll", since: 7, signedAt: 5 } as const;
    const params = bridgeQueryParams(query, sign);
    expect(Object.entries(params)).toEqual([
      ["address", "a:1"],
      ["kind", "poll"],
      ["since", "7"],
      ["signedAt", "5"],
      ["signature", base64(bridgeQueryMessage(query).slice(0, 3))],
    ]);
  });

  it("leave since out when it is not set (the payload signs 0)", () => {
    const params = bridgeQueryParams({ address: "a:1", kind: "ws", signedAt: 5 }, (m) => m);
    expect(Object.keys(params)).toEqual(["address", "kind", "signedAt", "signature"]);
    expect(atob(params.signature ?? "")).toBe(
      '{"address":"a:1","kind":"ws","signedAt":5,"since":0}',
    );
  });

  it("send watched in the given order, signed sorted", () => {
    const params = presenceQueryParams(
      { address: "w", watched: ["b", "a"], signedAt: 1 },
      (m) => m,
    );
    expect(params).toEqual({
      address: "w",
      kind: "presence",
      watched: "b,a",
      signedAt: "1",
      signature: btoa('{"address":"w","kind":"presence","signedAt":1,"watched":["a","b"]}'),
    });
  });
});
