import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createIdentity } from "./identity.js";
import { initiateSession, respondToFirstMessage, type Session } from "./session.js";
import { makeResponder, seededRandom } from "./test-support/parties.js";
import { codeOf, establishedPair, refusedUnchanged, utf8 } from "./test-support/sessions.js";

const MESSAGES_EACH_WAY = 100;

interface InFlight {
  to: "alice" | "bob";
  plaintext: Uint8Array;
  envelope: Uint8Array;
}

/** A small seeded PRNG (mulberry32) for the delivery schedule; fast-check picks the seed. */
function schedule(seed: number): (below: number) => number {
  let a = seed >>> 0;
  return (below) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % below) | 0;
  };
}

describe("a session under random out-of-order delivery", () => {
  it(`delivers ${MESSAGES_EACH_WAY} messages each way, each decrypted exactly once`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const pick = schedule(seed);
        const responder = makeResponder(`ooo-${seed}`);
        const aliceIdentity = createIdentity({ random: seededRandom(`ooo-alice-${seed}`) });
        let alice: Session | undefined;
        let bob: Session | undefined;
        const sent = { alice: 0, bob: 0 };
        const delivered: InFlight[] = [];
        let previousRound: InFlight[] = [];

        const send = async (from: "alice" | "bob"): Promise<InFlight> => {
          const plaintext = utf8.encode(`${from} ${sent[from]++} ${seed}`);
          const to = from === "alice" ? "bob" : "alice";
          if (from === "alice" && !alice) {
            const start = await initiateSession(aliceIdentity, responder.bundle(), plaintext);
            alice = start.session;
            return { to, plaintext, envelope: start.envelope };
          }
          const session = from === "alice" ? alice : bob;
          return { to, plaintext, envelope: (session as Session).encrypt(plaintext) };
        };
        const deliver = async (message: InFlight) => {
          let plaintext: Uint8Array;
          if (message.to === "bob" && !bob) {
            const responded = await respondToFirstMessage(
              responder.identity,
              responder.store,
              message.envelope,
            );
            bob = responded.session;
            plaintext = responded.plaintext;
          } else {
            plaintext = (message.to === "bob" ? bob : alice)?.decrypt(
              message.envelope,
            ) as Uint8Array;
          }
          expect(plaintext).toEqual(message.plaintext);
          delivered.push(message);
        };

        // Rounds: each side sends a few messages, then everything left from the previous round
        // and a random part of this one arrives, shuffled. Nothing is later than one round, which
        // keeps every skipped key within MAX_SKIPPED_AGE DH-ratchet steps.
        while (sent.alice < MESSAGES_EACH_WAY || sent.bob < MESSAGES_EACH_WAY) {
          const thisRound: InFlight[] = [];
          for (let i = pick(7); i > 0 && sent.alice < MESSAGES_EACH_WAY; i--) {
            thisRound.push(await send("alice"));
          }
          for (let i = pick(7); i > 0 && bob && sent.bob < MESSAGES_EACH_WAY; i--) {
            thisRound.push(await send("bob"));
          }
          const arriving = [...previousRound];
          previousRound = [];
          for (const message of thisRound) (pick(2) ? arriving : previousRound).push(message);
          while (arriving.length > 0) {
            await deliver(arriving.splice(pick(arriving.length), 1)[0] as InFlight);
          }
        }
        for (const message of previousRound) await deliver(message);

        expect(delivered.length).toBe(2 * MESSAGES_EACH_WAY);
        for (const message of delivered) {
          const session = (message.to === "bob" ? bob : alice) as Session;
          await refusedUnchanged(session, message.envelope);
        }
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});

describe("a tampered envelope", () => {
  it("is refused for every flipped bit, leaving the state unchanged", async () => {
    const { alice, bob } = await establishedPair("bit-flip");
    bob.decrypt(alice.encrypt(utf8.encode("before")));
    const envelope = alice.encrypt(utf8.encode("flip me"));
    for (let bit = 0; bit < envelope.length * 8; bit++) {
      const flipped = envelope.slice();
      flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
      await refusedUnchanged(bob, flipped);
    }
    expect(bob.decrypt(envelope)).toEqual(utf8.encode("flip me"));
  });

  it("is refused for every flipped bit of a later prekey envelope", async () => {
    const responder = makeResponder("bit-flip-prekey");
    const start = await initiateSession(createIdentity(), responder.bundle(), utf8.encode("0"));
    const second = start.session.encrypt(utf8.encode("1"));
    const { session: bob } = await respondToFirstMessage(
      responder.identity,
      responder.store,
      start.envelope,
    );
    for (let bit = 0; bit < second.length * 8; bit++) {
      const flipped = second.slice();
      flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
      await refusedUnchanged(bob, flipped);
    }
    expect(bob.decrypt(second)).toEqual(utf8.encode("1"));
  });

  it("is refused as a first message and leaves the one-time prekey in the store", async () => {
    const responder = makeResponder("bit-flip-first");
    const { envelope } = await initiateSession(
      createIdentity(),
      responder.bundle(),
      utf8.encode("0"),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: envelope.length * 8 - 1 }), async (bit) => {
        const flipped = envelope.slice();
        flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
        await codeOf(() => respondToFirstMessage(responder.identity, responder.store, flipped));
        expect(responder.store.oneTimePreKeyCount).toBe(1);
      }),
      { numRuns: 150 },
    );
    await respondToFirstMessage(responder.identity, responder.store, envelope);
  });

  it("is refused when truncated at any length, leaving the state unchanged", async () => {
    const { alice, bob } = await establishedPair("truncate");
    const envelope = alice.encrypt(utf8.encode("truncate me"));
    for (let length = 0; length < envelope.length; length++) {
      await refusedUnchanged(bob, envelope.slice(0, length));
    }
    await refusedUnchanged(bob, Uint8Array.of(...envelope, 0));
    expect(bob.decrypt(envelope)).toEqual(utf8.encode("truncate me"));
  });
});
