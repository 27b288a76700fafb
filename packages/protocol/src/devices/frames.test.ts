import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEVICE_FRAME_DOMAIN,
  type DeviceFrame,
  decodeDeviceFrame,
  encodeDeviceFrame,
  isDeviceFrame,
} from "./frames.js";

const key = (fill: number) => new Uint8Array(32).fill(fill);
const frames: DeviceFrame[] = [
  {
    kind: "sent-copy",
    to: "bob@example.org",
    sentAtMs: 1763780000000,
    plaintext: new TextEncoder().encode("see you at 8"),
  },
  { kind: "sent-copy", to: "bob@example.org:2", sentAtMs: 0, plaintext: new Uint8Array() },
  { kind: "link-request", identitySigningKey: key(1), identityDHKey: key(2), mac: key(3) },
  { kind: "link-approval", version: 2 ** 53 - 1, listHash: key(4), mac: key(5) },
  { kind: "link-refused" },
];

describe("device frames", () => {
  it("round-trip every kind", () => {
    for (const frame of frames) {
      const bytes = encodeDeviceFrame(frame);
      expect(isDeviceFrame(bytes)).toBe(true);
      expect(decodeDeviceFrame(bytes)).toEqual(frame);
    }
  });

  it("lay a sent copy out as domain, kind 1, u16 length, to, u64 time, plaintext", () => {
    const bytes = encodeDeviceFrame(frames[0] as DeviceFrame);
    const to = new TextEncoder().encode("bob@example.org");
    expect(bytes.subarray(0, DEVICE_FRAME_DOMAIN.length + 3)).toEqual(
      Uint8Array.from([...DEVICE_FRAME_DOMAIN, 1, 0, to.length]),
    );
  });

  it("are not an application's plaintext that merely starts like one", () => {
    expect(isDeviceFrame(new TextEncoder().encode("svc-device-frame-v1"))).toBe(false);
    expect(isDeviceFrame(new TextEncoder().encode("hello"))).toBe(false);
  });

  it("decode nothing but DEVICE_FRAME_MALFORMED from any other bytes", () => {
    const encoded = frames.map(encodeDeviceFrame);
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc
        .uint8Array({ maxLength: 120 })
        .map((tail) => Uint8Array.from([...DEVICE_FRAME_DOMAIN, ...tail])),
      fc
        .tuple(fc.constantFrom(...encoded), fc.nat(), fc.integer({ min: 0, max: 255 }))
        .map(([frame, at, value]) => {
          const changed = frame.slice(0, Math.max(0, frame.length - (at % 3)));
          if (changed.length > 0) changed[at % changed.length] = value;
          return changed;
        }),
    );
    fc.assert(
      fc.property(bytes, (input) => {
        try {
          const frame = decodeDeviceFrame(input);
          expect(encodeDeviceFrame(frame)).toEqual(input);
        } catch (error) {
          expect(error).toMatchObject({ code: "DEVICE_FRAME_MALFORMED" });
        }
      }),
      { numRuns: 2000 },
    );
  });
});
