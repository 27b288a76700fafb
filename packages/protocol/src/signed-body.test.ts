import {
  CanonicalError,
  decodeBase64,
  ed25519KeyPairFromSeed,
  portableEd25519,
} from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { signBody, signedBody, signedBodyMessage } from "./signed-body.js";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const seed = new Uint8Array(32).fill(7);

describe("signedBodyMessage", () => {
  it("drops signature, adds @method upper-cased and @path as given", () => {
    const message = signedBodyMessage("delete", "/v1/keys/a%40b", { signedAt: 1, signature: "x" });
    expect(text(message)).toBe('{"@method":"DELETE","@path":"/v1/keys/a%40b","signedAt":1}');
  });

  it("encodes UTF-8", () => {
    expect(signedBodyMessage("POST", "/", { s: "\u00e9" })).toEqual(
      new TextEncoder().encode('{"@method":"POST","@path":"/","s":"\u00e9"}'),
    );
  });

  it.each(["@method", "@path", "@x"])("rejects a body member named %s", (name) => {
    try {
      signedBodyMessage("POST", "/", { [name]: "1" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CanonicalError);
      expect((error as CanonicalError).code).toBe("RESERVED_MEMBER");
    }
  });

  it("rejects numbers outside D3 with INVALID_NUMBER", () => {
    expect(() => signedBodyMessage("POST", "/", { signedAt: 1.5 })).toThrow(CanonicalError);
  });

  it("rejects caller mistakes with TypeError/RangeError", () => {
    expect(() => signedBodyMessage("", "/", {})).toThrow(TypeError);
    expect(() => signedBodyMessage("POST", "/a?b=1", {})).toThrow(RangeError);
    expect(() => signedBodyMessage("POST", "a", {})).toThrow(RangeError);
    expect(() => signedBodyMessage("POST", "/", [] as unknown as Record<string, unknown>)).toThrow(
      TypeError,
    );
    expect(() =>
      signedBodyMessage("POST", "/", null as unknown as Record<string, unknown>),
    ).toThrow(TypeError);
  });
});

describe("signBody / signedBody", () => {
  it("produces a signature that verifies and binds method and path", () => {
    const fields = { address: "alice", signedAt: 1763780000000 };
    const body = signedBody("POST", "/v1/inbox/register", fields, seed);
    expect(body).toMatchObject(fields);
    const signature = decodeBase64(body.signature, 64);
    const { publicKey } = ed25519KeyPairFromSeed(seed);
    const verify = (method: string, path: string) =>
      portableEd25519.verify(signature, signedBodyMessage(method, path, body), publicKey);
    expect(verify("POST", "/v1/inbox/register")).toBe(true);
    expect(verify("DELETE", "/v1/inbox/register")).toBe(false);
    expect(verify("POST", "/v1/inbox/register/alice")).toBe(false);
  });

  it("ignores an existing signature member", () => {
    const fields = { signedAt: 1 };
    expect(signBody("POST", "/", { ...fields, signature: "old" }, seed)).toBe(
      signBody("POST", "/", fields, seed),
    );
  });

  it("rejects a bad seed with RangeError", () => {
    expect(() => signBody("POST", "/", {}, new Uint8Array(31))).toThrow(RangeError);
  });
});
