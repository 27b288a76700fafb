import { type BenchRow, printTable } from "../harness/table.js";
import { nodeRatchetRates, nodeSetupRates } from "./node-one-core.js";
import { chromiumRatchetRates } from "./ratchet-browser.js";
import { chromiumSetupRates } from "./ratchet-browser-setup.js";
import type { SetupRates } from "./setup.js";
import type { MessageRate, RatchetRates, RatchetTiming } from "./workloads.js";

/** BENCH_QUICK=1 times a fifth as long: for trying the suite, not for numbers to quote. */
const QUICK = process.env.BENCH_QUICK === "1";
const TIMING: Omit<RatchetTiming, "cpuMs"> = {
  rounds: 5,
  symmetricMs: QUICK ? 60 : 300,
  dhMs: QUICK ? 100 : 500,
};
/** Symmetric step + AEAD, 1 KiB, encrypt+decrypt, one core in Node (client side, item 6). */
const SYMMETRIC_TARGET = 10_000;
const SETUP_TIMING = { rounds: 5, msPerRound: QUICK ? 200 : 1000 };
/** PQXDH initiate + respond per second on one core in Node. */
const PQXDH_TARGET = 300;
/** PQXDH's extra cost over X3DH at most this multiple of the raw ML-KEM it runs. */
const KEM_OVERHEAD_TARGET = 1.2;

/**
 * @svc/ratchet: 1 KiB messages encrypted by one Session and decrypted by the other, (a) in one
 * direction (symmetric steps only) and (b) in strict alternation (a DH-ratchet step per message),
 * in Node and in headless Chromium. Each beside its crypto bound in the same run: the same
 * KDF_CK and ChaCha20-Poly1305 on the same bytes without the session, and for DH steps the
 * X25519 operations alone.
 */
export async function ratchetSuite(): Promise<void> {
  const node = await nodeRatchetRates(TIMING);
  const where = node.pinned ? "one process pinned to CPU 0 (taskset)" : "one thread, not pinned";
  printTable(
    `ratchet: 1 KiB messages, encrypt+decrypt, Node, ${where} (ops/s = messages per wall second)`,
    rows(node.rates, "node"),
  );
  const setup = await nodeSetupRates(SETUP_TIMING);
  printTable(
    `ratchet: session setup, Node, ${setup.pinned ? "one process pinned to CPU 0 (taskset)" : "one thread, not pinned"} (ops/s = per wall second)`,
    setupRows(setup.rates, "node"),
  );
  const browser = await chromiumRatchetRates(TIMING);
  if (browser === undefined) {
    console.log("\n(ratchet in Chromium skipped: /usr/bin/chromium is not installed)");
    return;
  }
  printTable(
    "ratchet: 1 KiB messages, encrypt+decrypt, headless Chromium, page's thread (ops/s = messages per wall second)",
    rows(browser, "chromium"),
  );
  const browserSetup = await chromiumSetupRates(SETUP_TIMING);
  if (browserSetup !== undefined) {
    printTable(
      "ratchet: session setup, headless Chromium, page's thread (ops/s = per wall second)",
      setupRows(browserSetup, "chromium"),
    );
  }
}

/**
 * X3DH and PQXDH initiate + respond beside the raw ML-KEM-1024 they need, and the ratio of
 * PQXDH's extra time over X3DH to that raw ML-KEM time (CPU time where the runtime reads it).
 */
function setupRows(rates: SetupRates, runtime: "node" | "chromium"): BenchRow[] {
  const rate = (measured: MessageRate) => measured.perCpuSecond ?? measured.perWallSecond;
  const extra = 1 / rate(rates.pqxdh) - 1 / rate(rates.x3dh);
  const ratio = extra / (1 / rate(rates.kemPerSetup));
  const clock = rates.pqxdh.perCpuSecond === undefined ? "wall" : "CPU";
  const setupTarget =
    runtime === "node" && rates.pqxdh.perCpuSecond !== undefined
      ? `; target >= ${PQXDH_TARGET}/s on one core: ${rates.pqxdh.perCpuSecond >= PQXDH_TARGET ? "met" : "NOT met"}`
      : "";
  const kemRaw = "raw ML-KEM-1024 per PQXDH setup (@noble/post-quantum)";
  return [
    {
      name: "raw ML-KEM-1024 encaps (@noble/post-quantum)",
      opsPerSec: rates.encaps.perWallSecond,
      note: `${perCpu(rates.encaps)}the initiator's share`,
    },
    {
      name: "raw ML-KEM-1024 keygen from seed + decaps",
      opsPerSec: rates.decaps.perWallSecond,
      note: `${perCpu(rates.decaps)}the responder's share (a KEM prekey is kept as its seed)`,
    },
    {
      name: kemRaw,
      opsPerSec: rates.kemPerSetup.perWallSecond,
      note: `${perCpu(rates.kemPerSetup)}encaps + keygen + decaps`,
    },
    {
      name: "X3DH initiate + respond",
      opsPerSec: rates.x3dh.perWallSecond,
      note: `${perCpu(rates.x3dh)}with a one-time prekey, first message decrypted`,
    },
    {
      name: "PQXDH initiate + respond",
      opsPerSec: rates.pqxdh.perWallSecond,
      baseline: "X3DH initiate + respond",
      note: `${perCpu(rates.pqxdh, rates.x3dh)}PQXDH - X3DH = ${ratio.toFixed(2)}x the raw ML-KEM time (${clock}; target <= ${KEM_OVERHEAD_TARGET}: ${ratio <= KEM_OVERHEAD_TARGET ? "met" : "NOT met"})${setupTarget}`,
    },
  ];
}

function rows(rates: RatchetRates, runtime: "node" | "chromium"): BenchRow[] {
  const symmetricBound = "bound: KDF_CK + ChaCha20-Poly1305, no session";
  const dhBound = "bound: DHRatchet's 3 X25519 alone";
  const { symmetric, dhSteps } = rates;
  const target =
    runtime === "node" && symmetric.ours.perCpuSecond !== undefined
      ? `; target >= ${SYMMETRIC_TARGET.toLocaleString("en-US")}/s on one core: ${symmetric.ours.perCpuSecond >= SYMMETRIC_TARGET ? "met" : "NOT met"}`
      : "";
  return [
    {
      name: symmetricBound,
      opsPerSec: symmetric.bound.perWallSecond,
      note: `${perCpu(symmetric.bound)}per message: 2 KDF_CK, 12 random bytes, seal + open, 170-byte AD`,
    },
    {
      name: "Session, symmetric steps (one direction)",
      opsPerSec: symmetric.ours.perWallSecond,
      baseline: symmetricBound,
      note: `${perCpu(symmetric.ours, symmetric.bound)}encrypt -> decrypt${target}`,
    },
    {
      name: "Session, symmetric steps, state saved and restored after each",
      opsPerSec: symmetric.persisted.perWallSecond,
      baseline: "Session, symmetric steps (one direction)",
      note: `${perCpu(symmetric.persisted, symmetric.ours)}serialize + deserialize on both sides per message, as a client persists them`,
    },
    {
      name: dhBound,
      opsPerSec: dhSteps.bound.perWallSecond,
      note: `${perCpu(dhSteps.bound)}per message: 2 DH + 1 key pair (@noble/curves)`,
    },
    {
      name: "Session, DH step per message (ping-pong)",
      opsPerSec: dhSteps.ours.perWallSecond,
      baseline: dhBound,
      note: `${perCpu(dhSteps.ours, dhSteps.bound)}adds 2 KDF_RK (HKDF), KDF_CK, AEAD, state to the bound`,
    },
  ];
}

/** "N/s per CPU-second (P% of the baseline's); " where the runtime reads its CPU time. */
function perCpu(rate: MessageRate, bound?: MessageRate): string {
  if (rate.perCpuSecond === undefined) return "";
  const ofBound =
    bound?.perCpuSecond === undefined
      ? ""
      : ` (${((rate.perCpuSecond / bound.perCpuSecond) * 100).toFixed(0)}% of the baseline's)`;
  return `${Math.round(rate.perCpuSecond).toLocaleString("en-US")}/s per CPU-second${ofBound}; `;
}
