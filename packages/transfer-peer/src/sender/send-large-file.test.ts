import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import { afterAll, expect, it } from "vitest";
import {
  type Closer,
  closeAll,
  registeredClient,
  startDirectory,
  tempDir,
} from "../test-support/directory.js";
import { spawnChildSender } from "../test-support/sender/child-sender.js";
import { startReceivingPeer } from "../test-support/sender/receiving-peer.js";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const closers: Closer[] = [];
afterAll(() => closeAll(closers));

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * MiB })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest("hex");
}

it("sends a 4 GiB sparse file with the sender's RSS growing by well under 200 MiB", async () => {
  const directory = await startDirectory(closers);
  const receiverClient = await registeredClient(closers, directory, "bob@example.org:1");
  const peer = await startReceivingPeer(closers, receiverClient);
  const home = await tempDir(closers, "svc-sender-home-");
  const sender = await SvcClient.open({
    server: directory,
    store: fileStore(home),
    ...nodeClientOptions(),
  });
  await sender.init("alice@example.org:1");
  await sender.close();

  const dir = await tempDir(closers, "svc-sparse-");
  const path = join(dir, "sparse.bin");
  const regions = [0, GiB + 12_345, 3 * GiB, 4 * GiB - MiB].map((at) => ({
    at,
    bytes: randomBytes(MiB),
  }));
  const file = await open(path, "w");
  await file.truncate(4 * GiB);
  for (const { at, bytes } of regions) await file.write(bytes, 0, MiB, at);
  await file.close();

  const started = performance.now();
  const child = spawnChildSender({
    server: directory,
    home,
    to: "bob@example.org:1",
    peer: peer.url,
    path,
    journal: join(dir, "journal"),
  });
  closers.push(async () => void child.process.kill("SIGKILL"));
  const { done, rss } = await child.waitFor((line) => line.done !== undefined);
  const seconds = (performance.now() - started) / 1000;
  const growthMiB = ((rss?.max ?? 0) - (rss?.baseline ?? 0)) / MiB;
  console.info(
    `4 GiB sparse file: ${seconds.toFixed(1)} s (${((4 * 1024) / seconds).toFixed(0)} MiB/s), sender RSS ${((rss?.baseline ?? 0) / MiB).toFixed(0)} -> ${((rss?.max ?? 0) / MiB).toFixed(0)} MiB (+${growthMiB.toFixed(0)} MiB)`,
  );
  expect(done?.bytes).toBe(4 * GiB);
  expect(growthMiB).toBeLessThan(200);
  // The receiver finished the stream, so the received file's SHA-256 is the one the sender
  // announced; that one is checked here, and the non-zero regions compared for good measure.
  expect(done?.sha256).toBe(await sha256Of(path));
  const received = await open(peer.finished[0]?.path as string, "r");
  try {
    expect((await received.stat()).size).toBe(4 * GiB);
    for (const { at, bytes } of regions) {
      const { buffer } = await received.read(Buffer.alloc(MiB), 0, MiB, at);
      expect(buffer.equals(bytes)).toBe(true);
    }
  } finally {
    await received.close();
  }
}, 600_000);
