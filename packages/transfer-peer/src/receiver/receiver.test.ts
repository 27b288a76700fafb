import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseRequest } from "@svc/protocol";
import { ChunkAck, ResumeState } from "@svc/protocol/transfer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TransferStore } from "../store/transfer-store.js";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import {
  countingCipher,
  type Peers,
  STORE_KINDS,
  type StartMessage,
  sendControl,
  startFor,
  startPeers,
  type TestReceiver,
  testReceiver,
} from "../test-support/receiver-harness.js";
import {
  chunkRequest,
  type SealedFile,
  sealFile,
  stateRequest,
} from "../test-support/signed-requests.js";
import type { TransferReceiverOptions } from "./options.js";

const suite: Closer[] = [];
const closers: Closer[] = [];
let peers: Peers;
beforeAll(async () => {
  peers = await startPeers(suite);
});
afterAll(() => closeAll(suite));
afterEach(() => closeAll(closers));

async function expectError(
  response: Response,
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const body = await response.json();
  expect({ status: response.status, body }).toMatchObject({ status, body: { code, ...extra } });
}

describe.each(STORE_KINDS)("receiver with the $name", ({ open, skip }) => {
  interface Setup {
    receiver: TestReceiver;
    openStore: () => TransferStore;
  }

  async function setup(options: Partial<TransferReceiverOptions> = {}): Promise<Setup> {
    const openStore = await open(closers);
    const dir = await tempDir(closers, "svc-received-");
    const receiver = testReceiver({ client: peers.receiver, store: openStore(), dir, ...options });
    return { receiver, openStore };
  }

  interface Started {
    start: StartMessage;
    key: Uint8Array;
    sealed: SealedFile;
  }

  async function started(
    receiver: TestReceiver,
    content: Uint8Array,
    shape: { lanes: number; chunkBytes: number; name?: string },
  ): Promise<Started> {
    const { start, key } = startFor(content, shape);
    const response = await sendControl(peers, receiver, start);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    return { start, key, sealed: sealFile(content, { ...start, key }) };
  }

  const envelopeOf = (stream: Started, laneId: number, seq: bigint): Uint8Array =>
    stream.sealed.lanes[laneId]?.[Number(seq) - 1] as Uint8Array;

  const sendChunk = (receiver: TestReceiver, stream: Started, laneId: number, seq: bigint) =>
    receiver.send(
      chunkRequest(peers.sender, {
        streamId: stream.start.streamId,
        laneId,
        seq,
        envelope: envelopeOf(stream, laneId, seq),
      }),
    );

  async function sendLane(receiver: TestReceiver, stream: Started, laneId: number, from = 1n) {
    const chunks = stream.sealed.lanes[laneId] ?? [];
    for (let seq = from; seq <= BigInt(chunks.length); seq++) {
      const response = await sendChunk(receiver, stream, laneId, seq);
      expect(response.status).toBe(200);
      expect(parseRequest(ChunkAck, await response.json())).toEqual({
        ok: true,
        lastSeqAcked: String(seq),
      });
    }
  }

  async function resumeState(receiver: TestReceiver, streamId: string): Promise<ResumeState> {
    const response = await receiver.send(stateRequest(peers.sender, streamId));
    expect(response.status).toBe(200);
    return parseRequest(ResumeState, await response.json());
  }

  it.skipIf(skip)(
    "receives 3 lanes of 257 chunks in parallel, checks the SHA-256 and renames the file into place",
    async () => {
      const { receiver } = await setup();
      const content = randomBytes(3 * 257 * 64 - 13);
      const stream = await started(receiver, content, {
        lanes: 3,
        chunkBytes: 64,
        name: "../holiday photos.tar",
      });
      expect(stream.sealed.lanes.map((lane) => lane.length)).toEqual([257, 257, 257]);
      await Promise.all([0, 1, 2].map((laneId) => sendLane(receiver, stream, laneId)));
      expect(await resumeState(receiver, stream.start.streamId)).toEqual({
        streamId: stream.start.streamId,
        status: "active",
        lanes: [0, 1, 2].map((laneId) => ({ laneId, lastSeqAcked: "257" })),
      });

      const finish = { type: "finish", streamId: stream.start.streamId } as const;
      expect((await sendControl(peers, receiver, finish)).status).toBe(200);
      const path = join(receiver.dir, "holiday photos.tar");
      expect(await readFile(path)).toEqual(content);
      expect(await readdir(join(receiver.dir, ".partial"))).toEqual([]);
      expect(receiver.finished).toEqual([
        {
          streamId: stream.start.streamId,
          sender: peers.sender.address,
          name: "holiday photos.tar",
          path,
          size: content.length,
          sha256: stream.start.sha256,
        },
      ]);
      expect((await resumeState(receiver, stream.start.streamId)).status).toBe("finished");
    },
    // 771 chunks, each fdatasynced and recorded before its ack: 14 s on embedded PGlite when idle.
    60_000,
  );

  it.skipIf(skip)("saves beside an existing file of the same name, never over it", async () => {
    const { receiver } = await setup();
    for (const expected of ["same.txt", "same (1).txt"]) {
      const content = randomBytes(100);
      const stream = await started(receiver, content, {
        lanes: 1,
        chunkBytes: 64,
        name: "same.txt",
      });
      await sendLane(receiver, stream, 0);
      await sendControl(peers, receiver, { type: "finish", streamId: stream.start.streamId });
      expect(await readFile(join(receiver.dir, expected))).toEqual(content);
    }
  });

  it.skipIf(skip)(
    "continues a stream after a restart: a new store instance over the same data",
    async () => {
      const { receiver, openStore } = await setup();
      const content = randomBytes(2 * 10 * 32);
      const stream = await started(receiver, content, { lanes: 2, chunkBytes: 32 });
      await sendLane(receiver, stream, 0);
      for (let seq = 1n; seq <= 4n; seq++) await sendChunk(receiver, stream, 1, seq);

      const restarted = testReceiver({
        client: peers.receiver,
        store: openStore(),
        dir: receiver.dir,
      });
      const state = await resumeState(restarted, stream.start.streamId);
      expect(state.lanes).toEqual([
        { laneId: 0, lastSeqAcked: "10" },
        { laneId: 1, lastSeqAcked: "4" },
      ]);
      await expectError(await sendChunk(restarted, stream, 1, 4n), 409, "SVC_REPLAY", {
        lastSeqAcked: "4",
      });
      await sendLane(restarted, stream, 1, 5n);
      const finish = { type: "finish", streamId: stream.start.streamId } as const;
      expect((await sendControl(peers, restarted, finish)).status).toBe(200);
      expect(await readFile(join(receiver.dir, "file.bin"))).toEqual(content);
    },
  );

  it.skipIf(skip)(
    "refuses replayed and out-of-order chunks with the lane's lastSeqAcked",
    async () => {
      const { receiver } = await setup();
      const stream = await started(receiver, randomBytes(640), { lanes: 2, chunkBytes: 64 });
      expect((await sendChunk(receiver, stream, 0, 1n)).status).toBe(200);
      expect((await sendChunk(receiver, stream, 0, 2n)).status).toBe(200);
      await expectError(await sendChunk(receiver, stream, 0, 1n), 409, "SVC_REPLAY", {
        lastSeqAcked: "2",
      });
      await expectError(await sendChunk(receiver, stream, 0, 4n), 409, "SVC_OUT_OF_ORDER", {
        lastSeqAcked: "2",
      });
      await expectError(await sendChunk(receiver, stream, 1, 2n), 409, "SVC_OUT_OF_ORDER", {
        lastSeqAcked: "0",
      });
    },
  );

  it.skipIf(skip)("accepts exactly one of racing copies of a chunk", async () => {
    const { receiver } = await setup();
    const stream = await started(receiver, randomBytes(640), { lanes: 1, chunkBytes: 64 });
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => sendChunk(receiver, stream, 0, 1n)),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([
      200, 409, 409, 409, 409, 409,
    ]);
  });

  it.skipIf(skip)("refuses chunks of a paused, finished or aborted stream with 409", async () => {
    const { receiver } = await setup();
    const stream = await started(receiver, randomBytes(128), { lanes: 1, chunkBytes: 64 });
    const { streamId } = stream.start;
    await sendControl(peers, receiver, { type: "pause", streamId });
    await expectError(await sendChunk(receiver, stream, 0, 1n), 409, "SVC_INVALID_TRANSITION", {
      lastSeqAcked: "0",
    });
    await sendControl(peers, receiver, { type: "resume", streamId });
    expect((await sendChunk(receiver, stream, 0, 1n)).status).toBe(200);
    await sendControl(peers, receiver, { type: "abort", streamId, reason: "changed my mind" });
    await expectError(await sendChunk(receiver, stream, 0, 2n), 409, "SVC_INVALID_TRANSITION", {
      lastSeqAcked: "1",
    });
    expect(await readdir(join(receiver.dir, ".partial"))).toEqual([]);
  });

  it.skipIf(skip)(
    "refuses a chunk that does not decrypt, or not to its planned place, with 400",
    async () => {
      const { receiver } = await setup();
      const stream = await started(receiver, randomBytes(640), { lanes: 2, chunkBytes: 64 });
      const { streamId } = stream.start;
      const tampered = envelopeOf(stream, 0, 1n).slice();
      tampered[40] = (tampered[40] as number) ^ 1;
      const send = (laneId: number, seq: bigint, envelope: Uint8Array) =>
        receiver.send(chunkRequest(peers.sender, { streamId, laneId, seq, envelope }));
      await expectError(await send(0, 1n, tampered), 400, "SVC_BAD_REQUEST");

      // Sealed with the stream's key, but with another chunk's offset.
      const misplaced = sealFile(randomBytes(640), {
        ...stream.start,
        key: stream.key,
        chunkBytes: 32,
      });
      await expectError(
        await send(0, 1n, misplaced.lanes[0]?.[0] as Uint8Array),
        400,
        "SVC_BAD_REQUEST",
      );
      // Sealed under another key.
      const foreign = sealFile(randomBytes(640), {
        ...stream.start,
        key: new Uint8Array(32),
        lanes: 2,
      });
      await expectError(
        await send(0, 1n, foreign.lanes[0]?.[0] as Uint8Array),
        400,
        "SVC_BAD_REQUEST",
      );
      expect((await sendChunk(receiver, stream, 0, 1n)).status).toBe(200);
    },
  );

  it.skipIf(skip)(
    "refuses a chunk whose envelope header is not the request's lane, seq or stream",
    async () => {
      const { receiver } = await setup();
      const stream = await started(receiver, randomBytes(640), { lanes: 2, chunkBytes: 64 });
      const other = await started(receiver, randomBytes(640), { lanes: 2, chunkBytes: 64 });
      const { streamId } = stream.start;
      const send = (laneId: number, seq: bigint, envelope: Uint8Array) =>
        receiver.send(chunkRequest(peers.sender, { streamId, laneId, seq, envelope }));
      await expectError(await send(0, 1n, envelopeOf(stream, 1, 1n)), 400, "SVC_BAD_REQUEST");
      await expectError(await send(0, 1n, envelopeOf(stream, 0, 2n)), 400, "SVC_BAD_REQUEST");
      await expectError(await send(0, 1n, envelopeOf(other, 0, 1n)), 400, "SVC_BAD_REQUEST");
      await expectError(await send(2, 1n, envelopeOf(stream, 0, 1n)), 400, "SVC_BAD_REQUEST");
      const laneHeaders = [
        { "X-Svc-Lane-Id": "01" },
        { "X-Svc-Lane-Id": "4294967296" },
        { "X-Svc-Lane-Id": undefined },
        { "X-Svc-Seq": "-1" },
        { "X-Svc-Seq": "18446744073709551616" },
        { "X-Svc-Seq": undefined },
      ];
      for (const headers of laneHeaders) {
        const request = chunkRequest(peers.sender, {
          streamId,
          laneId: 0,
          seq: 1n,
          envelope: envelopeOf(stream, 0, 1n),
          headers,
        });
        await expectError(await receiver.send(request), 400, "SVC_BAD_REQUEST");
      }
    },
  );

  it.skipIf(skip)(
    "refuses chunk and state requests not signed by the stream's sender now",
    async () => {
      const { receiver } = await setup();
      const stream = await started(receiver, randomBytes(640), { lanes: 2, chunkBytes: 64 });
      const other = await started(receiver, randomBytes(640), { lanes: 2, chunkBytes: 64 });
      const { streamId } = stream.start;
      const envelope = envelopeOf(stream, 0, 1n);
      const send = (options: Partial<Parameters<typeof chunkRequest>[1]>, signer = peers.sender) =>
        receiver.send(chunkRequest(signer, { streamId, laneId: 0, seq: 1n, envelope, ...options }));
      // The stranger's key under the sender's address, and the stranger as itself.
      const forger = { client: peers.stranger.client, address: peers.sender.address };
      await expectError(await send({}, forger), 401, "SVC_BAD_SIGNATURE");
      await expectError(await send({}, peers.stranger), 401, "SVC_UNAUTHORIZED");
      await expectError(await send({ signedAt: Date.now() - 301_000 }), 401, "SVC_STALE_SIGNATURE");
      await expectError(await send({ signedAt: Date.now() + 301_000 }), 401, "SVC_STALE_SIGNATURE");
      await expectError(
        await send({ signedFor: { streamId: other.start.streamId } }),
        401,
        "SVC_BAD_SIGNATURE",
      );
      await expectError(await send({ signedFor: { seq: 2n } }), 401, "SVC_BAD_SIGNATURE");
      await expectError(await send({ signedFor: { laneId: 1 } }), 401, "SVC_BAD_SIGNATURE");
      await expectError(
        await send({ headers: { "X-Svc-Signature": "A".repeat(86) } }),
        401,
        "SVC_BAD_SIGNATURE",
      );
      await expectError(
        await send({ headers: { "X-Svc-Signature": undefined } }),
        401,
        "SVC_UNAUTHORIZED",
      );
      await expectError(
        await send({ headers: { "X-Svc-Sender-Address": undefined } }),
        401,
        "SVC_UNAUTHORIZED",
      );
      await expectError(
        await send({ headers: { "X-Svc-Signed-At": "soon" } }),
        400,
        "SVC_BAD_REQUEST",
      );
      await expectError(
        await send({ headers: { "X-Svc-Sender-Address": "not an address" } }),
        400,
        "SVC_INVALID_ADDRESS",
      );
      // A chunk body other than the signed one.
      const swapped = await chunkRequest(peers.sender, { streamId, laneId: 0, seq: 1n, envelope });
      const resent = new Request(swapped, { body: envelopeOf(stream, 0, 2n) });
      await expectError(await receiver.send(resent), 401, "SVC_BAD_SIGNATURE");

      await expectError(
        await receiver.send(stateRequest(peers.stranger, streamId)),
        401,
        "SVC_UNAUTHORIZED",
      );
      await expectError(
        await receiver.send(stateRequest(forger, streamId)),
        401,
        "SVC_BAD_SIGNATURE",
      );
      await expectError(
        await receiver.send(stateRequest(peers.sender, streamId, Date.now() - 301_000)),
        401,
        "SVC_STALE_SIGNATURE",
      );
      const otherState = await stateRequest(peers.sender, other.start.streamId);
      const moved = new Request(otherState.url.replace(other.start.streamId, streamId), otherState);
      await expectError(await receiver.send(moved), 401, "SVC_BAD_SIGNATURE");
      expect((await send({})).status).toBe(200);
    },
  );

  it.skipIf(skip)(
    "answers 413 for an oversized chunk before reading it whole or decrypting",
    async () => {
      const cipher = countingCipher();
      const { receiver } = await setup({ cipher, maxChunkBytes: 53 + 64 });
      const stream = await started(receiver, randomBytes(640), { lanes: 1, chunkBytes: 64 });
      const { streamId } = stream.start;
      const oversized = new Uint8Array(53 + 65);
      oversized.set(envelopeOf(stream, 0, 1n));
      const declared = await chunkRequest(peers.sender, {
        streamId,
        laneId: 0,
        seq: 1n,
        envelope: oversized,
      });
      await expectError(await receiver.send(declared), 413, "SVC_TOO_LARGE");

      // No Content-Length: the body is counted as it streams in.
      let pulled = 0;
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          controller.enqueue(new Uint8Array(64));
        },
      });
      const streamed = new Request(declared.url, {
        method: "POST",
        headers: declared.headers,
        body: endless,
        duplex: "half",
      } as RequestInit);
      await expectError(await receiver.send(streamed), 413, "SVC_TOO_LARGE");
      expect(pulled).toBeLessThan(10);
      expect(cipher.opened).toBe(0);
      expect((await sendChunk(receiver, stream, 0, 1n)).status).toBe(200);
      expect(cipher.opened).toBe(1);
    },
  );

  it.skipIf(skip)("answers 404 for chunk and state requests of an unknown stream", async () => {
    const { receiver } = await setup();
    const { start, key } = startFor(randomBytes(64), { lanes: 1, chunkBytes: 64 });
    const envelope = sealFile(randomBytes(64), { ...start, key }).lanes[0]?.[0] as Uint8Array;
    const chunk = chunkRequest(peers.sender, {
      streamId: start.streamId,
      laneId: 0,
      seq: 1n,
      envelope,
    });
    await expectError(await receiver.send(chunk), 404, "SVC_STREAM_NOT_FOUND");
    await expectError(
      await receiver.send(stateRequest(peers.sender, start.streamId)),
      404,
      "SVC_STREAM_NOT_FOUND",
    );
    await expectError(
      await receiver.send(new Request("http://receiver.test/v1/transfer/not-a-stream/state")),
      400,
      "SVC_BAD_REQUEST",
    );
  });
});
