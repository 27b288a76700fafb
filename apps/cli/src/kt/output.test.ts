import { KtVerifyError } from "@svc/kt-verify";
import { describe, expect, it } from "vitest";
import { jsonOutput, textOutput } from "./output.js";

const sth = {
  event: "sth",
  treeSize: 3,
  timestampMs: 1_763_780_000_000,
  rootHash: "cm9vdA==",
  indexRoot: "aW5kZXg=",
} as const;
const tombstone = {
  event: "change",
  address: "alice",
  kind: "tombstone",
  leafIndex: 2,
  timestampMs: 1_763_780_000_000,
} as const;
const error = new KtVerifyError("KT_FORK", "two different STHs at size 3");

describe("output", () => {
  it("--json writes each event and problem as one JSON object", () => {
    expect(JSON.parse(jsonOutput.event(sth))).toEqual(sth);
    expect(JSON.parse(jsonOutput.problem("error", error))).toEqual({
      event: "error",
      code: "KT_FORK",
      message: "two different STHs at size 3",
    });
  });

  it("text says what was verified or changed, with ISO times", () => {
    expect(textOutput("svc-kt").event(sth)).toBe(
      "verified tree head: size 3, signed 2025-11-22T02:53:20.000Z, root cm9vdA==, index root aW5kZXg=",
    );
    expect(textOutput("svc-kt").event(tombstone)).toBe(
      "alice: deleted at leaf 2, 2025-11-22T02:53:20.000Z",
    );
    expect(textOutput("svc-kt").event({ ...tombstone, timestampMs: 2 ** 53 - 1 })).toBe(
      "alice: deleted at leaf 2, 9007199254740991 ms",
    );
    const identity = { ...tombstone, kind: "identity" } as const;
    expect(textOutput("svc-kt").event(identity)).toBe(
      "alice: new identity at leaf 2, 2025-11-22T02:53:20.000Z (a v2 leaf: it commits to the keys, see the bundle)",
    );
    expect(
      textOutput("svc-kt").event({
        ...identity,
        identitySigningKey: "c2s=",
        identityDHKey: "ZGg=",
      }),
    ).toBe(
      "alice: new identity at leaf 2, 2025-11-22T02:53:20.000Z: signing key c2s=, DH key ZGg=",
    );
    expect(textOutput("svc-kt").event({ ...identity, leafIndex: 5, previousLeafIndex: 2 })).toBe(
      "alice: identity updated at leaf 5, 2025-11-22T02:53:20.000Z, after leaf 2 (a v2 leaf: a new commitment, as when its last-resort KEM key is set or replaced; see the bundle)",
    );
    expect(textOutput("svc-kt").problem("warning", error)).toBe(
      "svc-kt: warning: KT_FORK: two different STHs at size 3",
    );
  });
});
