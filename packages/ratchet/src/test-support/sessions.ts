import { RatchetError, type RatchetErrorCode } from "../errors.js";
import { createIdentity, type Identity } from "../identity.js";
import { initiateSession, respondToFirstMessage, type Session } from "../session.js";
import { makeResponder, type Responder, seededRandom } from "./parties.js";

export const utf8 = new TextEncoder();
export const text = new TextDecoder();

export interface Pair {
  alice: Session;
  bob: Session;
  aliceIdentity: Identity;
  responder: Responder;
}

/** Alice and Bob after X3DH and one message each way: both send normal envelopes. */
export async function establishedPair(label: string): Promise<Pair> {
  const responder = makeResponder(`${label}-bob`);
  const aliceIdentity = createIdentity({ random: seededRandom(`${label}-alice`) });
  const start = await initiateSession(aliceIdentity, responder.bundle(), utf8.encode("hello"), {
    random: seededRandom(`${label}-alice-session`),
  });
  const { session: bob } = await respondToFirstMessage(
    responder.identity,
    responder.store,
    start.envelope,
    { random: seededRandom(`${label}-bob-session`) },
  );
  start.session.decrypt(bob.encrypt(utf8.encode("hi")));
  return { alice: start.session, bob, aliceIdentity, responder };
}

/** The code of the RatchetError `run` throws; fails the test on any other outcome. */
export async function codeOf(run: () => unknown): Promise<RatchetErrorCode> {
  try {
    await run();
  } catch (error) {
    if (error instanceof RatchetError) return error.code;
    throw error;
  }
  throw new Error("expected a RatchetError, got none");
}

/** Decrypting `envelope` fails with a RatchetError and leaves `session` byte for byte as it was. */
export async function refusedUnchanged(
  session: Session,
  envelope: Uint8Array,
): Promise<RatchetErrorCode> {
  const before = session.serialize();
  const code = await codeOf(() => session.decrypt(envelope));
  const after = session.serialize();
  if (!equal(before, after)) throw new Error(`state changed by a refused envelope (${code})`);
  return code;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
