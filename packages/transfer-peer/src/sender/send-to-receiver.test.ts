import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeBase64Url } from "@svc/canonical";
import { SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import { sealChunk } from "@svc/protocol/transfer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeAesGcmChunkCipher, nodeChunkCipher } from "../cipher/node-chunk-cipher.js";
import {
  type Closer,
  closeAll,
  registeredClient,
  startDirectory,
  tempDir,
} from "../test-support/directory.js";
import { spawnChildSender } from "../test-support/sender/child-sender.js";
import {
  acceptedChunks,
  type ReceivingPeer,
  startReceivingPeer,
} from "../test-support/sender/receiving-peer.js";
import { chunkRequest } from "../test-support/signed-requests.js";
import type { ResumeInfo, SendOptions } from "./options.js";
import type { RetryNotice } from "./retry.js";
import { SendJournal } from "./send-journal.js";
import { sendFile } from "./transfer.js";

const RECEIVER = "bob@example.org:1";
const SENDER = "alice@example.org:1";

const suite: Closer[] = [];
const closers: Closer[] = [];
let directory: string;
let receiverClient: SvcClient;
let senderClient: SvcClient;
beforeAll(async () => {
  directory = await startDirectory(suite);
  [receiverClient, senderClient] = await Promise.all([
    registeredClient(suite, directory, RECEIVER),
    registeredClient(suite, directory, SENDER),
  ]);
});
afterAll(() => closeAll(suite));
afterEach(() => closeAll(closers));

async function fileOf(content: Uint8Array): Promise<string> {
  const path = join(await tempDir(closers, "svc-send-"), "file.bin");
  await writeFile(path, content);
  return path;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function optionsFor(peer: ReceivingPeer, extra: Partial<SendOptions> = {}): SendOptions {
  return { client: senderClient, to: RECEIVER, peer: peer.url, ...extra };
}

describe("sendFile to mountTransferReceiver", () => {
  it("sends 3 lanes of 257 chunks; the received file has the sender's SHA-256", async () => {
    const peer = await startReceivingPeer(closers, receiverClient);
    const chunkBytes = 16 * 1024;
    const content = randomBytes(3 * 257 * chunkBytes - 1000);
    const path = await fileOf(content);
    const transfer = sendFile(path, optionsFor(peer, { lanes: 3, chunkBytes }));
    const result = await transfer.done;
    expect(result).toMatchObject({ bytes: content.length, resumedBytes: 0 });
    const [received] = peer.finished;
    expect(received).toMatchObject({
      streamId: transfer.streamId,
      sender: SENDER,
      name: "file.bin",
    });
    expect(await sha256Of(received?.path as string)).toBe(result.sha256);
    expect(peer.answered).toHaveLength(3 * 257);
    expect(acceptedChunks(peer.answered).size).toBe(3 * 257);
    expect(new Set(peer.answered.map((a) => a.laneId))).toEqual(new Set([0, 1, 2]));
  });

  it("speaks version 1 to a receiver that lists no versions: SHA-256 in the start, 0x11 chunks", async () => {
    const peer = await startReceivingPeer(closers, receiverClient, { versionOneOnly: true });
    const path = await fileOf(randomBytes(100 * 1024));
    const transfer = sendFile(path, optionsFor(peer, { lanes: 2, chunkBytes: 16 * 1024 }));
    const result = await transfer.done;
    const record = await peer.store.get(transfer.streamId);
    expect(record).toMatchObject({ version: 1, sha256: result.sha256, status: "finished" });
    expect(await sha256Of(peer.finished[0]?.path as string)).toBe(result.sha256);
  });

  it("resumes a version 2 stream under a fresh key; the finish names the file's SHA-256", async () => {
    const peer = await startReceivingPeer(closers, receiverClient);
    const path = await fileOf(randomBytes(400 * 1024));
    const stop = new AbortController();
    const first = sendFile(
      path,
      optionsFor(peer, { lanes: 2, chunkBytes: 8192, signal: stop.signal }),
    );
    let stream: ResumeInfo | undefined;
    first.on("started", (info) => {
      stream = info;
    });
    first.on("progress", ({ bytes }) => {
      if (bytes >= 100 * 1024) stop.abort();
    });
    await expect(first.done).rejects.toBeDefined();
    await peer.idle();
    // libsodium loads here: the in-place ChaCha20-Poly1305, which leaves no garbage per chunk.
    expect(stream).toMatchObject({ version: 2, cipher: "chacha20-poly1305", size: 400 * 1024 });
    expect(stream).not.toHaveProperty("sha256");
    const before = await peer.store.get(first.streamId);
    expect(before).toMatchObject({ version: 2, cipher: "chacha20-poly1305", status: "active" });
    expect(before?.key).toEqual(first.key);

    const second = sendFile(path, optionsFor(peer, { resume: stream }));
    expect(second.key).not.toEqual(first.key);
    const result = await second.done;
    expect(result.resumedBytes).toBeGreaterThan(0);
    const after = await peer.store.get(first.streamId);
    expect(after).toMatchObject({ status: "finished", key: second.key });
    expect(after).not.toHaveProperty("sha256");
    expect(result.sha256).toBe(await sha256Of(path));
    expect(await sha256Of(peer.finished[0]?.path as string)).toBe(result.sha256);
  });

  it("pauses (the receiver's stream paused, no chunk sent meanwhile) and resumes", async () => {
    const peer = await startReceivingPeer(closers, receiverClient);
    const content = randomBytes(400 * 1024);
    const transfer = sendFile(
      await fileOf(content),
      optionsFor(peer, { lanes: 2, chunkBytes: 8192 }),
    );
    const paused = new Promise<void>((resolve, reject) => {
      let asked = false;
      transfer.on("progress", ({ bytes }) => {
        if (bytes < 100 * 1024 || asked) return;
        asked = true;
        transfer.pause().then(resolve, reject);
      });
    });
    await paused;
    expect((await peer.store.get(transfer.streamId))?.status).toBe("paused");
    const answered = peer.answered.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(peer.answered.length).toBe(answered);
    expect(answered).toBeLessThan(50);
    await transfer.resume();
    const result = await transfer.done;
    expect((await peer.store.get(transfer.streamId))?.status).toBe("finished");
    expect(await sha256Of(peer.finished[0]?.path as string)).toBe(result.sha256);
    expect(peer.answered.every((a) => a.status === 200)).toBe(true);
  });

  it("aborts: the receiver's stream is aborted and refuses further chunks with 409", async () => {
    const peer = await startReceivingPeer(closers, receiverClient);
    const transfer = sendFile(
      await fileOf(randomBytes(400 * 1024)),
      optionsFor(peer, { lanes: 2, chunkBytes: 8192 }),
    );
    let stream: ResumeInfo | undefined;
    transfer.on("started", (info) => {
      stream = info;
    });
    transfer.once("progress", () => void transfer.abort("test"));
    await expect(transfer.done).rejects.toMatchObject({ code: "ABORTED" });
    const record = await peer.store.get(transfer.streamId);
    expect(record?.status).toBe("aborted");

    const laneId = 0;
    const seq = (record?.lastSeqAcked[laneId] ?? 0n) + 1n;
    const envelope = sealChunk(
      {
        key: transfer.key,
        streamId: decodeBase64Url(transfer.streamId, 16),
        laneId,
        seq,
        offset: Number(seq - 1n) * 2 * 8192,
        data: new Uint8Array(8192),
      },
      record?.cipher === "aes-256-gcm" ? nodeAesGcmChunkCipher : nodeChunkCipher,
    );
    const request = await chunkRequest(
      { client: senderClient, address: SENDER },
      { streamId: transfer.streamId, laneId, seq, envelope },
    );
    const response = await peer.app.fetch(request);
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      code: "SVC_INVALID_TRANSITION",
      lastSeqAcked: String(seq - 1n),
    });
    await expect(
      sendFile(await fileOf(randomBytes(10)), optionsFor(peer, { resume: stream })).done,
    ).rejects.toMatchObject({ code: "SOURCE_CHANGED" });
  });

  it("retries 503s and connection resets over node:http, and every byte arrives", async () => {
    const peer = await startReceivingPeer(closers, receiverClient);
    const failures = new Map([
      ["0/2", 2],
      ["1/5", 1],
      ["2/1", 3],
    ]);
    peer.faults.push(({ laneId, seq }) => {
      const key = `${laneId}/${seq}`;
      const left = failures.get(key) ?? 0;
      if (left === 0) return undefined;
      failures.set(key, left - 1);
      if (laneId === 1) return "reset";
      return Response.json(
        { name: "Unavailable", code: "SVC_UNAVAILABLE", message: "injected" },
        { status: 503 },
      );
    });
    const content = randomBytes(30 * 4096);
    const transfer = sendFile(
      await fileOf(content),
      optionsFor(peer, { lanes: 3, chunkBytes: 4096, retry: { baseMs: 5, maxMs: 20 } }),
    );
    const retries: RetryNotice[] = [];
    transfer.on("retry", (notice) => retries.push(notice));
    const result = await transfer.done;
    expect(retries.map((r) => r.request).sort()).toEqual([
      "chunk lane 0 seq 2",
      "chunk lane 0 seq 2",
      "chunk lane 1 seq 5",
      "chunk lane 2 seq 1",
      "chunk lane 2 seq 1",
      "chunk lane 2 seq 1",
    ]);
    expect(retries.find((r) => r.request === "chunk lane 1 seq 5")?.reason).toMatch(
      /socket hang up|ECONNRESET/,
    );
    expect(await sha256Of(peer.finished[0]?.path as string)).toBe(result.sha256);
  });

  it("resumes a sender killed with SIGKILL: resumedBytes > 0, no accepted chunk sent again", async () => {
    const peer = await startReceivingPeer(closers, receiverClient);
    // The sender's identity lives in a file store that both of its processes open in turn.
    const home = await tempDir(closers, "svc-sender-home-");
    const sender = await SvcClient.open({
      server: directory,
      store: fileStore(home),
      ...nodeClientOptions(),
    });
    await sender.init("carol@example.org:1");
    await sender.close();
    const journalDir = join(await tempDir(closers, "svc-journal-"), "journal");
    const content = randomBytes(24 * 1024 * 1024);
    const path = await fileOf(content);
    // Slow enough that the kill lands mid-transfer.
    peer.faults.push(() => 2);

    const child = spawnChildSender({
      server: directory,
      home,
      to: RECEIVER,
      peer: peer.url,
      path,
      journal: journalDir,
      lanes: 3,
      chunkBytes: 64 * 1024,
    });
    closers.push(async () => void child.process.kill("SIGKILL"));
    await child.waitFor((line) => line.started !== undefined);
    await child.waitFor((line) => (line.progress ?? 0) >= content.length / 4);
    child.process.kill("SIGKILL");
    expect((await child.exited).signal).toBe("SIGKILL");
    expect(child.lines.some((line) => line.done)).toBe(false);
    await peer.idle();
    const acceptedBefore = acceptedChunks(peer.answered);
    const answeredBefore = peer.answered.length;

    const journal = new SendJournal(journalDir);
    const route = { to: RECEIVER, peer: peer.url };
    const resume = await journal.lookup(path, route);
    expect(resume?.lanes).toBe(3);
    const client = await SvcClient.open({
      server: directory,
      store: fileStore(home),
      ...nodeClientOptions(),
    });
    closers.push(() => client.close());
    const result = await sendFile(path, { client, to: RECEIVER, peer: peer.url, resume }).done;

    expect(result.resumedBytes).toBeGreaterThan(0);
    expect(result.resumedBytes).toBe(acceptedBefore.size * 64 * 1024);
    const sentAgain = peer.answered
      .slice(answeredBefore)
      .filter((a) => acceptedBefore.has(`${a.laneId}/${a.seq}`));
    expect(sentAgain).toEqual([]);
    expect(await sha256Of(peer.finished[0]?.path as string)).toBe(result.sha256);
  });
});
