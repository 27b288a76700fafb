import { createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { vapidAuthorization } from "./vapid-jwt.js";
import { generateVapidKeys, vapidKeysFromPrivate, vapidPublicKeyBase64Url } from "./vapid-keys.js";

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0, 500);

/** The JWT of an Authorization header, checked with node:crypto against its own `k=`. */
function verified(authorization: string) {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization);
  expect(match).not.toBeNull();
  const [, token = "", k = ""] = match ?? [];
  const [header = "", claims = "", signature = ""] = token.split(".");
  const point = Buffer.from(k, "base64url");
  const key = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33).toString("base64url"),
    },
    format: "jwk",
  });
  const signatureBytes = Buffer.from(signature, "base64url");
  expect(signatureBytes.length).toBe(64);
  expect(
    verify(
      "sha256",
      Buffer.from(`${header}.${claims}`),
      { key, dsaEncoding: "ieee-p1363" },
      signatureBytes,
    ),
  ).toBe(true);
  return {
    k,
    header: Buffer.from(header, "base64url").toString(),
    claims: Buffer.from(claims, "base64url").toString(),
  };
}

describe("VAPID keys", () => {
  it("generates a P-256 pair whose private scalar gives back its public key", () => {
    const keys = generateVapidKeys();
    expect(keys.publicKey.length).toBe(65);
    expect(keys.publicKey[0]).toBe(4);
    expect(keys.privateKey.length).toBe(32);
    expect(vapidKeysFromPrivate(keys.privateKey)).toEqual(keys);
    expect(vapidPublicKeyBase64Url(keys)).toBe(Buffer.from(keys.publicKey).toString("base64url"));
  });

  it("refuses a private key that is not a P-256 scalar with INVALID_VAPID_KEY", () => {
    const order = Buffer.from(
      "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
      "hex",
    );
    for (const bad of [new Uint8Array(32), new Uint8Array(31).fill(1), new Uint8Array(order)]) {
      expect(() => vapidKeysFromPrivate(bad)).toThrow(
        expect.objectContaining({ name: "PushError", code: "INVALID_VAPID_KEY" }),
      );
    }
    const below = Uint8Array.from(order);
    below[31] = 0x50;
    expect(vapidKeysFromPrivate(below).publicKey.length).toBe(65);
  });
});

describe("vapidAuthorization", () => {
  const keys = generateVapidKeys();

  it("signs an ES256 JWT for the endpoint's origin, good for 12 hours, with the contact", () => {
    const jwt = verified(
      vapidAuthorization(
        "https://push.example.net:8443/wpush/v2/abc?x=1",
        keys,
        "mailto:ops@example.org",
        NOW,
      ),
    );
    expect(jwt.k).toBe(vapidPublicKeyBase64Url(keys));
    expect(jwt.header).toBe('{"typ":"JWT","alg":"ES256"}');
    expect(jwt.claims).toBe(
      `{"aud":"https://push.example.net:8443","exp":${Math.floor(NOW / 1000) + 43_200},"sub":"mailto:ops@example.org"}`,
    );
  });

  it("has no sub without a contact", () => {
    const jwt = verified(vapidAuthorization("https://push.example.net/x", keys, undefined, NOW));
    expect(JSON.parse(jwt.claims)).toEqual({
      aud: "https://push.example.net",
      exp: Math.floor(NOW / 1000) + 43_200,
    });
  });

  it("signs again only after an hour, or for another origin or contact", () => {
    const own = generateVapidKeys();
    const header = (endpoint: string, subject: string | undefined, at: number) =>
      vapidAuthorization(endpoint, own, subject, at);
    const first = header("https://push.example.net/a", undefined, NOW);
    expect(header("https://push.example.net/b", undefined, NOW + 3_599_999)).toBe(first);
    const later = verified(header("https://push.example.net/a", undefined, NOW + 3_600_000));
    expect(JSON.parse(later.claims).exp).toBe(Math.floor(NOW / 1000) + 3600 + 43_200);
    const elsewhere = verified(header("https://other.example/a", undefined, NOW + 10));
    expect(JSON.parse(elsewhere.claims).aud).toBe("https://other.example");
    const contact = verified(header("https://push.example.net/a", "mailto:x@example.org", NOW));
    expect(JSON.parse(contact.claims).sub).toBe("mailto:x@example.org");
    // A clock set back is not answered with a header signed in its future.
    const back = verified(header("https://push.example.net/a", undefined, NOW - 1000));
    expect(JSON.parse(back.claims).exp).toBe(Math.floor((NOW - 1000) / 1000) + 43_200);
  });

  it("refuses an endpoint that is not a URL with ENDPOINT_REFUSED", () => {
    expect(() => vapidAuthorization("not a url", keys, undefined, NOW)).toThrow(
      expect.objectContaining({ code: "ENDPOINT_REFUSED", message: "endpoint is not a URL" }),
    );
  });
});
