import { encodeBase64 } from "@svc/canonical";
import { DEVICE_FRAME_DOMAIN, encodeDeviceFrame } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { readMessage } from "./device-frames.js";
import { deliveriesOf } from "./fan-out.js";
import type { InboundMessage } from "./inbound.js";
import { dictionary, type KnownDeviceList, parseState, type StoredState } from "./state.js";

const key = (byte: number) => encodeBase64(new Uint8Array(32).fill(byte));
const utf8 = new TextEncoder();

const list: KnownDeviceList = {
  version: 2,
  listHash: key(9),
  devices: [
    { address: "alice:1", identitySigningKey: key(1) },
    { address: "alice:2", identitySigningKey: key(2) },
  ],
};

/** A state of alice:1 that knows alice:2's session keys (and those of `peers`). */
function stateOf(peers: Record<string, string> = { "alice:2": key(2) }): StoredState {
  return {
    address: "alice:1",
    peers: dictionary(
      Object.fromEntries(
        Object.entries(peers).map(([address, signing]) => [
          address,
          { identitySigningKey: signing, identityDHKey: key(0) },
        ]),
      ),
    ),
  } as unknown as StoredState;
}

const message = (from: string, plaintext: Uint8Array): InboundMessage => ({
  from,
  plaintext,
  msgId: "m1",
  receivedAt: 5,
});

const copy = encodeDeviceFrame({
  kind: "sent-copy",
  to: "bob",
  sentAtMs: 1,
  plaintext: utf8.encode("hi bob"),
});

describe("reading a received message", () => {
  const context = (state: StoredState, known: KnownDeviceList | undefined = list) => ({
    state,
    ownList: async () => known,
  });

  it("hands over another account's bytes untouched, even when they look like a frame", async () => {
    const reading = await readMessage(context(stateOf()), message("bob:1", copy));
    expect(reading).toEqual({
      kind: "deliver",
      message: { ...message("bob:1", copy), to: "alice" },
    });
  });

  it("reads a copy from a listed device of the account as the message it copies", async () => {
    const reading = await readMessage(context(stateOf()), message("alice:2", copy));
    expect(reading).toEqual({
      kind: "deliver",
      message: {
        from: "alice:2",
        to: "bob",
        plaintext: utf8.encode("hi bob"),
        msgId: "m1",
        receivedAt: 5,
        sent: true,
      },
    });
  });

  it("refuses a copy from a device not listed, or listed under other keys than its session's", async () => {
    for (const [from, state] of [
      ["alice:3", stateOf({ "alice:3": key(3) })],
      ["alice:2", stateOf({ "alice:2": key(7) })],
    ] as const) {
      const reading = await readMessage(context(state), message(from, copy));
      expect(reading).toMatchObject({ kind: "refuse", error: { code: "DEVICE_LIST_INVALID" } });
    }
    // No list seen for the account, nor served.
    const none = { state: stateOf(), ownList: async () => undefined };
    const unlisted = await readMessage(none, message("alice:2", copy));
    expect(unlisted.kind).toBe("refuse");
  });

  it("takes link frames, refuses a malformed frame, and hands over plain bytes of the account", async () => {
    const refused = encodeDeviceFrame({ kind: "link-refused" });
    expect(await readMessage(context(stateOf()), message("alice:5", refused))).toEqual({
      kind: "taken",
    });
    const malformed = Uint8Array.of(...DEVICE_FRAME_DOMAIN, 9);
    expect(await readMessage(context(stateOf()), message("alice:2", malformed))).toMatchObject({
      kind: "refuse",
      error: { code: "DEVICE_LIST_INVALID", msgId: "m1" },
    });
    const plain = utf8.encode("note to self");
    expect(await readMessage(context(stateOf()), message("alice:2", plain))).toEqual({
      kind: "deliver",
      message: { ...message("alice:2", plain), to: "alice" },
    });
  });
});

describe("deliveriesOf", () => {
  const plaintext = utf8.encode("hello");
  const bob: KnownDeviceList = {
    version: 1,
    listHash: key(8),
    devices: [
      { address: "bob:1", identitySigningKey: key(4) },
      { address: "bob:2", identitySigningKey: key(5) },
    ],
  };

  it("sends to each device of the account and a copy to each other own device", () => {
    const deliveries = deliveriesOf({
      self: "alice:1",
      ownAccount: "alice",
      account: "bob",
      list: bob,
      own: list,
      plaintext,
      now: 7,
    });
    expect(deliveries).toEqual([
      { address: "bob:1", plaintext, copy: false },
      { address: "bob:2", plaintext, copy: false },
      {
        address: "alice:2",
        plaintext: encodeDeviceFrame({ kind: "sent-copy", to: "bob", sentAtMs: 7, plaintext }),
        copy: true,
      },
    ]);
  });

  it("to the own account: copies to the other devices only", () => {
    const deliveries = deliveriesOf({
      self: "alice:1",
      ownAccount: "alice",
      account: "alice",
      list,
      own: undefined,
      plaintext,
      now: 7,
    });
    expect(deliveries.map((d) => [d.address, d.copy])).toEqual([["alice:2", true]]);
  });
});

describe("StoredState.accounts", () => {
  it("is optional (states from before load) and kept when present", () => {
    const base = {
      version: 1,
      address: "alice:1",
      registered: true,
      identity: {
        signingSeed: key(1),
        identitySigningKey: key(1),
        identityDHPrivateKey: key(1),
        identityDHKey: key(1),
      },
      signedPreKeys: [],
      oneTimePreKeys: {},
      nextOneTimePreKeyId: 1,
      sessions: {},
      peers: {},
      kt: null,
      cursor: 0,
      unacked: {},
      recentlyAcked: [],
    };
    expect(parseState(base).accounts).toBeUndefined();
    expect(parseState({ ...base, accounts: { alice: list } }).accounts?.alice).toEqual(list);
    expect(() => parseState({ ...base, accounts: { alice: { ...list, version: 0 } } })).toThrow(
      "accounts.alice.version",
    );
  });
});
