import { randomBytes } from "@noble/hashes/utils.js";
import { ml_kem1024 } from "@noble/post-quantum/ml-kem.js";
import type { PreKeyBundleKeys } from "@svc/protocol";
import {
  createIdentity,
  createKemPreKey,
  createOneTimePreKey,
  createSignedPreKey,
  initiateSession,
  MemoryPreKeyStore,
  respondToFirstMessage,
} from "@svc/ratchet";
import type { MessageRate } from "./workloads.js";

/**
 * Session setup: X3DH and PQXDH initiate + respond, and beside them the raw ML-KEM-1024
 * operations PQXDH adds (@noble/post-quantum directly). Like workloads.ts this file runs in Node
 * and in the page, so it imports nothing from Node.
 */
export type AsyncWorkload = (count: number) => Promise<void>;

export interface SetupRates {
  x3dh: MessageRate;
  pqxdh: MessageRate;
  /** Encapsulation alone (the initiator's share). */
  encaps: MessageRate;
  /** Key generation from the 64-byte seed, then decapsulation (the responder's share). */
  decaps: MessageRate;
  /** encaps + decaps: all the ML-KEM one PQXDH setup does. */
  kemPerSetup: MessageRate;
}

export interface SetupTiming {
  rounds: number;
  msPerRound: number;
  cpuMs?: (() => number) | undefined;
}

/** Each workload timed in turn, medians of `rounds` rounds: the rows of one run. */
export async function measureSetup(timing: SetupTiming): Promise<SetupRates> {
  const seed = randomBytes(64);
  const { publicKey } = ml_kem1024.keygen(seed);
  const { cipherText } = ml_kem1024.encapsulate(publicKey);
  const decaps = () => {
    ml_kem1024.decapsulate(cipherText, ml_kem1024.keygen(seed).secretKey);
  };
  const sync =
    (run: () => void): AsyncWorkload =>
    async (count) => {
      for (let i = 0; i < count; i++) run();
    };
  return measureAlternatingAsync(
    {
      x3dh: setupWorkload(false),
      pqxdh: setupWorkload(true),
      encaps: sync(() => ml_kem1024.encapsulate(publicKey)),
      decaps: sync(decaps),
      kemPerSetup: sync(() => {
        ml_kem1024.encapsulate(publicKey);
        decaps();
      }),
    },
    timing,
  );
}

/**
 * initiateSession + respondToFirstMessage with a bundle holding a one-time EC prekey and, for
 * PQXDH, a one-time KEM prekey: the full path, deletion of the used prekeys included (they are
 * put back for the next setup, which costs nothing measurable).
 */
function setupWorkload(postQuantum: boolean): AsyncWorkload {
  const message = new Uint8Array(64).fill(0x61);
  const alice = createIdentity();
  const bob = createIdentity();
  const signed = createSignedPreKey(bob, 1);
  const oneTime = createOneTimePreKey(2);
  const kem = createKemPreKey(bob, 3);
  const store = new MemoryPreKeyStore();
  store.addSignedPreKey(signed);
  const bundle: PreKeyBundleKeys = {
    identitySigningKey: bob.identitySigningKey,
    identityDHKey: bob.identityDHKey,
    signedPreKey: { keyId: 1, publicKey: signed.publicKey, signature: signed.signature },
    oneTimePreKey: { keyId: 2, publicKey: oneTime.publicKey },
  };
  if (postQuantum) {
    bundle.kemPreKey = {
      keyId: 3,
      publicKey: kem.publicKey,
      signature: kem.signature,
      lastResort: false,
    };
  }
  return async (count) => {
    for (let i = 0; i < count; i++) {
      store.addOneTimePreKey(oneTime);
      if (postQuantum) store.addKemPreKey({ keyId: 3, seed: kem.seed, lastResort: false });
      const { envelope } = await initiateSession(alice, bundle, message);
      const responded = await respondToFirstMessage(bob, store, envelope);
      if (responded.postQuantum !== postQuantum) throw new Error("the wrong key agreement ran");
    }
  };
}

async function measureAlternatingAsync<K extends string>(
  workloads: Record<K, AsyncWorkload>,
  { rounds, msPerRound, cpuMs }: SetupTiming,
): Promise<Record<K, MessageRate>> {
  const names = Object.keys(workloads) as K[];
  const measured = new Map<K, MessageRate[]>(names.map((name) => [name, []]));
  for (const name of names) await runFor(workloads[name], msPerRound, cpuMs);
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      measured.get(name)?.push(await runFor(workloads[name], msPerRound, cpuMs));
    }
  }
  const result = {} as Record<K, MessageRate>;
  for (const name of names) {
    const rates = measured.get(name) ?? [];
    result[name] = {
      perWallSecond: median(rates.map((rate) => rate.perWallSecond)),
      perCpuSecond: cpuMs ? median(rates.map((rate) => rate.perCpuSecond ?? 0)) : undefined,
    };
  }
  return result;
}

async function runFor(
  workload: AsyncWorkload,
  ms: number,
  cpuMs?: () => number,
): Promise<MessageRate> {
  const cpuStart = cpuMs?.() ?? 0;
  const start = performance.now();
  let count = 0;
  do {
    await workload(2);
    count += 2;
  } while (performance.now() - start < ms);
  const wall = (performance.now() - start) / 1000;
  const cpu = cpuMs ? (cpuMs() - cpuStart) / 1000 : undefined;
  return { perWallSecond: count / wall, perCpuSecond: cpu ? count / cpu : undefined };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
