import { describe, expect, it } from "vitest";
import {
  formatLinkCode,
  LINK_SECRET_SIZE,
  linkApprovalMac,
  linkKey,
  linkRequestMac,
  parseLinkCode,
} from "./link.js";

const secret = Uint8Array.from({ length: LINK_SECRET_SIZE }, (_, i) => i * 25);

describe("link codes", () => {
  it("show the device part and 80 bits in four groups of Crockford base32, and read back", () => {
    const code = formatLinkCode({ device: "phone-2", secret });
    expect(code).toMatch(/^phone-2-[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    expect(parseLinkCode(code)).toEqual({ device: "phone-2", secret });
    expect(formatLinkCode({ device: "1", secret: new Uint8Array(LINK_SECRET_SIZE) })).toBe(
      "1-0000-0000-0000-0000",
    );
    expect(
      formatLinkCode({ device: "1", secret: new Uint8Array(LINK_SECRET_SIZE).fill(255) }),
    ).toBe("1-ZZZZ-ZZZZ-ZZZZ-ZZZZ");
  });

  it("read as typed: spaces around, lower case, O for 0, I and L for 1", () => {
    const code = formatLinkCode({
      device: "1",
      secret: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 33),
    });
    expect(code).toBe("1-0000-0000-0000-0011");
    expect(parseLinkCode("  1-oOoO-0000-0000-OoiL ")).toEqual(parseLinkCode(code));
  });

  it("refuse what is not a code as LINK_CODE_MALFORMED", () => {
    for (const typed of [
      "",
      "0000-0000-0000-0000",
      "-0000-0000-0000-0000",
      "1-0000-0000-0000-000",
      "1-0000-0000-0000-000U",
      "1:2-0000-0000-0000-0000",
      "1_0000-0000-0000-0000",
      "1-00000-000-0000-0000",
    ]) {
      expect(() => parseLinkCode(typed), typed).toThrow(
        expect.objectContaining({ code: "LINK_CODE_MALFORMED" }),
      );
    }
  });
});

describe("link MACs", () => {
  const request = {
    address: "alice@example.org:2",
    identitySigningKey: new Uint8Array(32).fill(1),
    identityDHKey: new Uint8Array(32).fill(2),
  };

  it("bind the account, the code, the new device's address and both its keys", () => {
    const key = linkKey(secret, "alice@example.org");
    const mac = linkRequestMac(key, request);
    expect(mac).toHaveLength(32);
    expect(linkRequestMac(linkKey(secret, "alice@example.org"), request)).toEqual(mac);
    expect(linkRequestMac(linkKey(secret, "mallory@example.org"), request)).not.toEqual(mac);
    const otherSecret = secret.slice();
    otherSecret[0] = 1;
    expect(linkRequestMac(linkKey(otherSecret, "alice@example.org"), request)).not.toEqual(mac);
    expect(linkRequestMac(key, { ...request, address: "alice@example.org:3" })).not.toEqual(mac);
    expect(
      linkRequestMac(key, { ...request, identityDHKey: new Uint8Array(32).fill(3) }),
    ).not.toEqual(mac);
    expect(linkApprovalMac(key, new Uint8Array(32))).not.toEqual(mac);
  });
});
