import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { x25519 } from "@noble/curves/ed25519.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes } from "@noble/hashes/utils.js";
import {
  createIdentity,
  createSignedPreKey,
  initiateSession,
  MemoryPreKeyStore,
  respondToFirstMessage,
  Session,
} from "@svc/ratchet";

/**
 * The ratchet benchmark's workloads and their crypto bounds, the same code in Node and in the
 * page: ratchet-browser.ts bundles this file for Chromium, so it imports nothing from Node.
 * A workload runs `count` messages of 1 KiB, each encrypted by one session and decrypted by the
 * other.
 */
export type Workload = (count: number) => void;

export interface RatchetWorkloads {
  /** One direction, one chain: a KDF_CK step and the AEAD on each side per message. */
  symmetric: Workload;
  /** The same crypto on the same bytes without the session: KDF_CK, random nonce, AEAD. */
  symmetricBound: Workload;
  /** `symmetric`, each session saved and restored after each call, as a client persists it. */
  symmetricPersisted: Workload;
  /** Strict alternation: every message makes its receiver take a DH-ratchet step. */
  dhSteps: Workload;
  /** The X25519 operations of one DH-ratchet step alone (two DH, one key pair generated). */
  dhBound: Workload;
}

export interface RatchetRates {
  symmetric: { ours: MessageRate; bound: MessageRate; persisted: MessageRate };
  dhSteps: { ours: MessageRate; bound: MessageRate };
}

export interface RatchetTiming {
  rounds: number;
  /** Per round and workload, for the symmetric pair and for the DH pair. */
  symmetricMs: number;
  dhMs: number;
  /** This process's CPU time in ms, where the runtime has one (Node). */
  cpuMs?: (() => number) | undefined;
}

/** Both pairs of rows, each workload timed beside its bound; the entry Node and the page call. */
export async function measureRatchet(timing: RatchetTiming): Promise<RatchetRates> {
  const workloads = await ratchetWorkloads();
  const { rounds, cpuMs } = timing;
  return {
    symmetric: measureAlternating(
      {
        ours: { workload: workloads.symmetric, batch: 50 },
        bound: { workload: workloads.symmetricBound, batch: 50 },
        persisted: { workload: workloads.symmetricPersisted, batch: 50 },
      },
      { rounds, msPerRound: timing.symmetricMs, cpuMs },
    ),
    dhSteps: measureAlternating(
      {
        ours: { workload: workloads.dhSteps, batch: 4 },
        bound: { workload: workloads.dhBound, batch: 4 },
      },
      { rounds, msPerRound: timing.dhMs, cpuMs },
    ),
  };
}

export const MESSAGE_BYTES = 1024;
/** What the ratchet authenticates with each message: X3DH AD (128) || prefix (2 + 32 + 4 + 4). */
const AD_BYTES = 128 + 42;
const NONCE_BYTES = 12;

export async function ratchetWorkloads(): Promise<RatchetWorkloads> {
  const message = new Uint8Array(MESSAGE_BYTES).fill(0x61);
  const oneWay = await sessionPair(message);
  const persisted = await sessionPair(message);
  const pingPong = await sessionPair(message);
  return {
    symmetric: (count) => {
      for (let i = 0; i < count; i++)
        expectMessage(oneWay.bob.decrypt(oneWay.alice.encrypt(message)));
    },
    symmetricBound: symmetricBound(message),
    symmetricPersisted: (count) => {
      for (let i = 0; i < count; i++) {
        const envelope = persisted.alice.encrypt(message);
        persisted.alice = Session.deserialize(persisted.alice.serialize());
        expectMessage(persisted.bob.decrypt(envelope));
        persisted.bob = Session.deserialize(persisted.bob.serialize());
      }
    },
    dhSteps: (count) => {
      for (let i = 0; i < count; i++) {
        const [from, to] =
          i % 2 === 0 ? [pingPong.alice, pingPong.bob] : [pingPong.bob, pingPong.alice];
        expectMessage(to.decrypt(from.encrypt(message)));
      }
    },
    dhBound: dhBound(),
  };
}

/** Alice's and Bob's ends of a session through its first round trip, in the normal form. */
async function sessionPair(message: Uint8Array): Promise<{ alice: Session; bob: Session }> {
  const bobIdentity = createIdentity();
  const signed = createSignedPreKey(bobIdentity, 1);
  const store = new MemoryPreKeyStore();
  store.addSignedPreKey(signed);
  const bundle = {
    identitySigningKey: bobIdentity.identitySigningKey,
    identityDHKey: bobIdentity.identityDHKey,
    signedPreKey: { keyId: 1, publicKey: signed.publicKey, signature: signed.signature },
  };
  const start = await initiateSession(createIdentity(), bundle, message);
  const { session: bob } = await respondToFirstMessage(bobIdentity, store, start.envelope);
  expectMessage(start.session.decrypt(bob.encrypt(message)));
  return { alice: start.session, bob };
}

/**
 * Per message, each side's KDF_CK (two HMAC-SHA256 from one keyed state, as the ratchet does)
 * and ChaCha20-Poly1305 under the message key with a fresh random nonce and an AD as long as the
 * ratchet's: no header, no envelope, no state.
 */
function symmetricBound(message: Uint8Array): Workload {
  const ad = randomBytes(AD_BYTES);
  let sendingChain: Uint8Array = randomBytes(32);
  let receivingChain = sendingChain;
  return (count) => {
    for (let i = 0; i < count; i++) {
      const sent = kdfCk(sendingChain);
      sendingChain = sent.chainKey;
      const nonce = randomBytes(NONCE_BYTES);
      const sealed = chacha20poly1305(sent.messageKey, nonce, ad).encrypt(message);
      const received = kdfCk(receivingChain);
      receivingChain = received.chainKey;
      expectMessage(chacha20poly1305(received.messageKey, nonce, ad).decrypt(sealed));
    }
  };
}

const MESSAGE_KEY_CONSTANT = Uint8Array.of(0x01);
const CHAIN_KEY_CONSTANT = Uint8Array.of(0x02);

function kdfCk(chainKey: Uint8Array): { chainKey: Uint8Array; messageKey: Uint8Array } {
  const keyed = hmac.create(sha256, chainKey);
  const messageKey = keyed.clone().update(MESSAGE_KEY_CONSTANT).digest();
  return { chainKey: keyed.update(CHAIN_KEY_CONSTANT).digest(), messageKey };
}

/**
 * DHRatchet's X25519 work per received message: DH with the current key pair, a new key pair,
 * DH with that one. (The sender's next message reuses the key pair; it computes no X25519.)
 */
function dhBound(): Workload {
  let ours: Uint8Array = randomBytes(32);
  const theirs = x25519.getPublicKey(randomBytes(32));
  return (count) => {
    for (let i = 0; i < count; i++) {
      x25519.getSharedSecret(ours, theirs);
      ours = randomBytes(32);
      x25519.getPublicKey(ours);
      expectKey(x25519.getSharedSecret(ours, theirs));
    }
  };
}

function expectMessage(plaintext: Uint8Array): void {
  if (plaintext.length !== MESSAGE_BYTES) throw new Error("decrypted the wrong length");
}

function expectKey(key: Uint8Array): void {
  if (key.length !== 32) throw new Error("X25519 answered the wrong length");
}

// ------------------------------------------------------------------ measuring

/** Per wall-clock second and, where the runtime reads its CPU time (Node), per CPU-second. */
export interface MessageRate {
  perWallSecond: number;
  perCpuSecond: number | undefined;
}

export interface Timed {
  workload: Workload;
  /** Messages between two looks at the clock. */
  batch: number;
}

/**
 * Runs the workloads in turn for `rounds` rounds of `msPerRound` each, after a warm-up of one
 * round, and answers each one's median round: a drift in a shared machine's speed cannot favour
 * a workload over the one it is compared with. `cpuMs` reads this process's CPU time.
 */
export function measureAlternating<K extends string>(
  timed: Record<K, Timed>,
  options: { rounds: number; msPerRound: number; cpuMs?: (() => number) | undefined },
): Record<K, MessageRate> {
  const names = Object.keys(timed) as K[];
  const rounds = new Map<K, MessageRate[]>(names.map((name) => [name, []]));
  for (const name of names) runFor(timed[name], options.msPerRound, options.cpuMs);
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names)
      rounds.get(name)?.push(runFor(timed[name], options.msPerRound, options.cpuMs));
  }
  const result = {} as Record<K, MessageRate>;
  for (const name of names) {
    const measured = rounds.get(name) ?? [];
    result[name] = {
      perWallSecond: median(measured.map((r) => r.perWallSecond)),
      perCpuSecond: options.cpuMs ? median(measured.map((r) => r.perCpuSecond ?? 0)) : undefined,
    };
  }
  return result;
}

function runFor({ workload, batch }: Timed, ms: number, cpuMs?: () => number): MessageRate {
  const cpuStart = cpuMs?.() ?? 0;
  const start = performance.now();
  let count = 0;
  do {
    workload(batch);
    count += batch;
  } while (performance.now() - start < ms);
  const wall = (performance.now() - start) / 1000;
  const cpu = cpuMs ? (cpuMs() - cpuStart) / 1000 : undefined;
  return { perWallSecond: count / wall, perCpuSecond: cpu ? count / cpu : undefined };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
