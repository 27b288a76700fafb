import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { spawnPinnedNode } from "@svc/processes";
import { trackUsage } from "./side-usage.js";

/** The crypto the transfer cannot avoid, alone, on one core. */
export interface CryptoBound {
  /** Seconds inside the AEAD and the hash (reads from the page cache not counted). */
  seconds: number;
  /** The whole pass, reads included. */
  wallSeconds: number;
  cpuSeconds: number;
  peakRssBytes: number;
  pinned: boolean;
}

/**
 * Seals the file chunk by chunk with node:crypto's AES-256-GCM (a 29-byte header as AD, a nonce
 * per chunk, as svc's version 2 envelope) and hashes it with SHA-256, sequentially, in a process
 * pinned to CPU 0 with taskset where there is one, so that V8's helper threads share that core.
 */
export async function cryptoBound(file: string, chunkBytes: number): Promise<CryptoBound> {
  const { spawned, pinned } = spawnPinnedNode(fileURLToPath(import.meta.url), [], {
    inheritEnv: true,
    env: { SVC_CRYPTO_BOUND: JSON.stringify({ file, chunkBytes }) },
  });
  const code = await spawned.exited;
  if (code !== 0) {
    throw new Error(`the crypto bound's process exited with ${code}: ${spawned.out.stderr}`);
  }
  return { ...(JSON.parse(spawned.out.stdout) as Omit<CryptoBound, "pinned">), pinned };
}

function measure(file: string, chunkBytes: number): Omit<CryptoBound, "pinned"> {
  const usage = trackUsage();
  const key = randomBytes(32);
  const header = randomBytes(29);
  const nonce = Buffer.alloc(12);
  const chunk = Buffer.alloc(chunkBytes);
  const fileHash = createHash("sha256");
  const fd = openSync(file, "r");
  let seconds = 0;
  const started = performance.now();
  try {
    for (let seq = 1n; ; seq++) {
      const read = readSync(fd, chunk, 0, chunkBytes, null);
      if (read === 0) break;
      const data = chunk.subarray(0, read);
      const cryptoStarted = performance.now();
      nonce.writeBigUInt64BE(seq, 4);
      const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: 16 });
      cipher.setAAD(header, { plaintextLength: read });
      cipher.update(data);
      cipher.final();
      cipher.getAuthTag();
      fileHash.update(data);
      seconds += (performance.now() - cryptoStarted) / 1000;
    }
    fileHash.digest();
  } finally {
    closeSync(fd);
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const { cpuSeconds, peakRssBytes } = usage.read();
  return { seconds, wallSeconds, cpuSeconds, peakRssBytes };
}

if (process.env.SVC_CRYPTO_BOUND && process.argv[1] === fileURLToPath(import.meta.url)) {
  const { file, chunkBytes } = JSON.parse(process.env.SVC_CRYPTO_BOUND) as {
    file: string;
    chunkBytes: number;
  };
  process.stdout.write(JSON.stringify(measure(file, chunkBytes)));
}
