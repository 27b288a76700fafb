import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { encodeBase64 } from "@svc/canonical";
import { parseRequest } from "@svc/protocol";
import { nobleAesGcmChunkCipher, TransferHealthResponse } from "@svc/protocol/transfer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeAesGcmChunkCipher } from "../cipher/node-chunk-cipher.js";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import {
  countingCipher,
  type Peers,
  STORE_KINDS,
  sendControl,
  startFor,
  startPeers,
  startV2For,
  type TestReceiver,
  testReceiver,
} from "../test-support/receiver-harness.js";
import { chunkRequest, ORIGIN, sealFile } from "../test-support/signed-requests.js";

const suite: Closer[] = [];
const closers: Closer[] = [];
let peers: Peers;
beforeAll(async () => {
  peers = await startPeers(suite);
});
afterAll(() => closeAll(suite));
afterEach(() => closeAll(closers));

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

describe.each(STORE_KINDS)("version 2 streams with the $name", ({ open, skip }) => {
  async function receiverOn(
    openStore: Awaited<ReturnType<typeof open>>,
    dir: string,
  ): Promise<TestReceiver> {
    return testReceiver({ client: peers.receiver, store: openStore(), dir });
  }

  async function newReceiver() {
    const openStore = await open(closers);
    const dir = await tempDir(closers, "svc-received-");
    return { receiver: await receiverOn(openStore, dir), openStore, dir };
  }

  const chunk = (streamId: string, laneId: number, seq: bigint, envelope: Uint8Array) =>
    chunkRequest(peers.sender, { streamId, laneId, seq, envelope });

  it.skipIf(skip)("lists the versions it takes in its health answer", async () => {
    const { receiver } = await newReceiver();
    const body = await (
      await receiver.app.fetch(new Request(`${ORIGIN}/v1/transfer/health`))
    ).json();
    expect(parseRequest(TransferHealthResponse, body).versions).toEqual([1, 2]);
  });

  it.skipIf(skip)("takes ChaCha20-Poly1305 chunks when the start names that cipher", async () => {
    const { receiver, openStore } = await newReceiver();
    const content = randomBytes(500);
    const { start, key, sha256 } = startV2For(content, { lanes: 1, chunkBytes: 500 });
    const chacha = { ...start, cipher: "chacha20-poly1305" as const };
    expect((await sendControl(peers, receiver, chacha)).status).toBe(200);
    expect(await openStore().get(start.streamId)).toMatchObject({
      version: 2,
      cipher: "chacha20-poly1305",
    });
    const aesGcm = sealFile(content, { ...start, key }, nodeAesGcmChunkCipher).lanes[0]?.[0];
    expect(
      await answer(await receiver.send(chunk(start.streamId, 0, 1n, aesGcm as Uint8Array))),
    ).toMatchObject({
      status: 400,
      body: { message: "chunk envelope starts with 0x12, not 0x11" },
    });
    const envelope = sealFile(content, { ...start, key }).lanes[0]?.[0] as Uint8Array;
    expect((await receiver.send(chunk(start.streamId, 0, 1n, envelope))).status).toBe(200);
    const finish = { type: "finish" as const, streamId: start.streamId, sha256 };
    expect((await sendControl(peers, receiver, finish)).status).toBe(200);
  });

  it.skipIf(skip)(
    "takes AES-256-GCM chunks (no cipher named) and the SHA-256 in the finish",
    async () => {
      const { receiver } = await newReceiver();
      const content = randomBytes(1000);
      const { start, key, sha256 } = startV2For(content, { lanes: 2, chunkBytes: 300 });
      expect((await sendControl(peers, receiver, start)).status).toBe(200);
      const { streamId } = start;
      const sealed = sealFile(content, { ...start, key }, nobleAesGcmChunkCipher).lanes;
      // A version 1 envelope of the same chunk is refused before anything is decrypted.
      const v1 = sealFile(content, { ...start, key }).lanes[0]?.[0] as Uint8Array;
      expect(await answer(await receiver.send(chunk(streamId, 0, 1n, v1)))).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST", message: "chunk envelope starts with 0x11, not 0x12" },
      });
      for (const [laneId, envelopes] of sealed.entries()) {
        for (const [i, envelope] of envelopes.entries()) {
          const response = await receiver.send(chunk(streamId, laneId, BigInt(i + 1), envelope));
          expect(response.status).toBe(200);
        }
      }
      expect(
        await answer(await sendControl(peers, receiver, { type: "finish", streamId })),
      ).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST" },
      });
      const wrong = { type: "finish" as const, streamId, sha256: "0".repeat(64) };
      expect(await answer(await sendControl(peers, receiver, wrong))).toMatchObject({
        status: 409,
        body: {
          code: "SVC_INVALID_TRANSITION",
          message: "the data's SHA-256 is not the finish message's",
        },
      });
      const finish = { type: "finish" as const, streamId, sha256 };
      expect((await sendControl(peers, receiver, finish)).status).toBe(200);
      const [file] = receiver.finished;
      expect(file).toMatchObject({ streamId, size: content.length, sha256 });
      expect(await readFile(file?.path as string)).toEqual(content);
    },
  );

  it.skipIf(skip)("opens the chunks after a rekey with the new key, across a restart", async () => {
    const { receiver, openStore, dir } = await newReceiver();
    const content = randomBytes(900);
    const { start, key, sha256 } = startV2For(content, { lanes: 1, chunkBytes: 300 });
    const { streamId } = start;
    expect((await sendControl(peers, receiver, start)).status).toBe(200);
    const first = sealFile(content, { ...start, key }, nodeAesGcmChunkCipher).lanes[0] ?? [];
    expect((await receiver.send(chunk(streamId, 0, 1n, first[0] as Uint8Array))).status).toBe(200);

    // A new send attempt: a fresh key, then the rest of the file under it.
    const fresh = new Uint8Array(randomBytes(32));
    const rekey = { type: "rekey" as const, streamId, key: encodeBase64(fresh) };
    expect((await sendControl(peers, receiver, rekey)).status).toBe(200);
    const restarted = await receiverOn(openStore, dir);
    const second =
      sealFile(content, { ...start, key: fresh }, nodeAesGcmChunkCipher).lanes[0] ?? [];
    expect(
      await answer(await restarted.send(chunk(streamId, 0, 2n, first[1] as Uint8Array))),
    ).toMatchObject({
      status: 400,
      body: { message: "chunk does not authenticate" },
    });
    for (const seq of [2, 3]) {
      const envelope = second[seq - 1] as Uint8Array;
      expect((await restarted.send(chunk(streamId, 0, BigInt(seq), envelope))).status).toBe(200);
    }
    const finish = { type: "finish" as const, streamId, sha256 };
    expect((await sendControl(peers, restarted, finish)).status).toBe(200);
    expect(await readFile(restarted.finished[0]?.path as string)).toEqual(content);
    // A finished stream takes no key any more.
    expect(await answer(await sendControl(peers, restarted, rekey))).toMatchObject({
      status: 409,
      body: { code: "SVC_INVALID_TRANSITION" },
    });
  });

  it.skipIf(skip)(
    "keeps a version 1 stream's key and SHA-256 where its start put them",
    async () => {
      const cipher = countingCipher();
      const openStore = await open(closers);
      const dir = await tempDir(closers, "svc-received-");
      const receiver = testReceiver({ client: peers.receiver, store: openStore(), dir, cipher });
      const content = randomBytes(100);
      const { start, key } = startFor(content, { lanes: 1, chunkBytes: 100 });
      const { streamId } = start;
      expect((await sendControl(peers, receiver, start)).status).toBe(200);
      const rekey = { type: "rekey" as const, streamId, key: encodeBase64(randomBytes(32)) };
      expect(await answer(await sendControl(peers, receiver, rekey))).toMatchObject({
        status: 409,
        body: {
          code: "SVC_INVALID_TRANSITION",
          message: "a version 1 stream keeps its start's key",
        },
      });
      const aesGcm = sealFile(content, { ...start, key }, nodeAesGcmChunkCipher).lanes[0]?.[0];
      expect((await receiver.send(chunk(streamId, 0, 1n, aesGcm as Uint8Array))).status).toBe(400);
      expect(cipher.opened).toBe(0);
      const envelope = sealFile(content, { ...start, key }).lanes[0]?.[0] as Uint8Array;
      expect((await receiver.send(chunk(streamId, 0, 1n, envelope))).status).toBe(200);
      const named = { type: "finish" as const, streamId, sha256: start.sha256 };
      expect(await answer(await sendControl(peers, receiver, named))).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST" },
      });
      expect((await sendControl(peers, receiver, { type: "finish", streamId })).status).toBe(200);
    },
  );
});
