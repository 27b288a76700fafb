import { randomBytes } from "node:crypto";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ControlMessage, newStreamId } from "@svc/protocol/transfer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PARTIAL_DIR } from "../partial/received-files.js";
import type { TransferStore } from "../store/transfer-store.js";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import {
  type Peers,
  STORE_KINDS,
  type StartMessage,
  startFor,
  startPeers,
  type TestReceiver,
  testReceiver,
} from "../test-support/receiver-harness.js";
import {
  chunkRequest,
  controlRequest,
  type Signer,
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

type Limits = Partial<
  Pick<
    TransferReceiverOptions,
    | "maxStreamsPerSender"
    | "maxReservedBytesPerSender"
    | "maxReservedBytes"
    | "partialTtlMs"
    | "now"
  >
>;

// The first test of each store starts an embedded database on a machine that may be busy.
const TIMEOUT = { timeout: 60_000 };

describe.each(STORE_KINDS)(
  "what strangers can make a receiver hold, with the $name",
  TIMEOUT,
  (kind) => {
    let openStore: () => TransferStore;
    let dir: string;

    async function receiverWith(limits: Limits): Promise<TestReceiver> {
      openStore = await kind.open(closers);
      dir = await tempDir(closers, "svc-received-budget-");
      return again(limits);
    }

    /** Another receiver on the same directory and stream state: a restart. */
    function again(limits: Limits): TestReceiver {
      const receiver = testReceiver({ client: peers.receiver, store: openStore(), dir, ...limits });
      closers.push(async () => receiver.mounted.close());
      return receiver;
    }

    const control = (receiver: TestReceiver, from: Signer & Peers["sender"], m: ControlMessage) =>
      receiver.send(controlRequest(from.client, from.address, peers.receiverAddress, m));

    const startOf = (size: number) =>
      startFor(randomBytes(size), { lanes: 1, chunkBytes: 64 }).start;

    const partials = async () => (await readdir(join(dir, PARTIAL_DIR)).catch(() => [])).sort();

    async function refusal(response: Response) {
      return {
        status: response.status,
        code: ((await response.json()) as { code?: string }).code,
        retryAfter: response.headers.get("Retry-After"),
      };
    }

    it.skipIf(kind.skip)(
      "refuses a sender's start beyond its streams with 429, writing nothing",
      async () => {
        const receiver = await receiverWith({ maxStreamsPerSender: 2, partialTtlMs: 3_600_000 });
        const [first, second, third] = [startOf(10), startOf(10), startOf(10)];
        expect((await control(receiver, peers.sender, first)).status).toBe(200);
        expect((await control(receiver, peers.sender, second)).status).toBe(200);
        const before = await partials();
        expect(await refusal(await control(receiver, peers.sender, third))).toEqual({
          status: 429,
          code: "SVC_TOO_MANY_STREAMS",
          retryAfter: "3600",
        });
        expect(await partials()).toEqual(before);
        expect((await receiver.send(stateRequest(peers.sender, third.streamId))).status).toBe(404);
        // Another sender is not held back by this one's streams.
        expect((await control(receiver, peers.stranger, startOf(10))).status).toBe(200);
        // An abort gives the room back.
        const abort = { type: "abort", streamId: first.streamId } as const;
        expect((await control(receiver, peers.sender, abort)).status).toBe(200);
        expect((await control(receiver, peers.sender, third)).status).toBe(200);
      },
    );

    it.skipIf(kind.skip)(
      "reserves each unfinished stream's size per sender and in all: 507 beyond, 413 if it never fits",
      async () => {
        const receiver = await receiverWith({
          maxReservedBytesPerSender: 100,
          maxReservedBytes: 150,
        });
        const start = (from: Signer & Peers["sender"], size: number) =>
          control(receiver, from, startOf(size));
        expect(await refusal(await start(peers.sender, 101))).toMatchObject({
          status: 413,
          code: "SVC_TOO_LARGE",
        });
        expect((await start(peers.sender, 60)).status).toBe(200);
        const before = await partials();
        expect(await refusal(await start(peers.sender, 41))).toMatchObject({
          status: 507,
          code: "SVC_INSUFFICIENT_STORAGE",
        });
        expect(await partials()).toEqual(before);
        expect((await start(peers.sender, 40)).status).toBe(200);
        // 100 reserved of 150: the stranger's own 100 do not fit what is left in all.
        expect(await refusal(await start(peers.stranger, 51))).toMatchObject({
          status: 507,
          code: "SVC_INSUFFICIENT_STORAGE",
        });
        expect((await start(peers.stranger, 50)).status).toBe(200);
      },
    );

    it.skipIf(kind.skip)(
      "gives the last reserved bytes to exactly one of the starts racing for them",
      async () => {
        const receiver = await receiverWith({ maxReservedBytes: 100 });
        const starts = [peers.sender, peers.stranger, peers.sender, peers.stranger].map((from) =>
          control(receiver, from, startOf(40)),
        );
        const statuses = (await Promise.all(starts)).map((response) => response.status).sort();
        expect(statuses).toEqual([200, 200, 507, 507]);
        expect(await partials()).toHaveLength(2);
      },
    );

    it.skipIf(kind.skip)("counts the unfinished streams it finds after a restart", async () => {
      const limits = { maxReservedBytes: 100 };
      const first = await receiverWith(limits);
      expect((await control(first, peers.sender, startOf(60))).status).toBe(200);
      // A partial file no stream owns: a crash between making it and recording its stream.
      await writeFile(join(dir, PARTIAL_DIR, `${newStreamId()}.part`), "orphan");
      first.mounted.close();
      const second = again(limits);
      expect((await control(second, peers.sender, startOf(41))).status).toBe(507);
      expect(await partials()).toHaveLength(1);
      expect((await control(second, peers.sender, startOf(40))).status).toBe(200);
    });

    it.skipIf(kind.skip)(
      "expires a stream idle for partialTtlMs, its file and state, and not one resumed in time",
      async () => {
        let skew = 0;
        const now = () => Date.now() + skew;
        const receiver = await receiverWith({ partialTtlMs: 60_000, maxReservedBytes: 350, now });
        const content = randomBytes(128);
        const { start: resumed, key } = startFor(content, { lanes: 1, chunkBytes: 64 });
        const abandoned: StartMessage = startOf(200);
        expect((await control(receiver, peers.sender, resumed)).status).toBe(200);
        expect((await control(receiver, peers.sender, abandoned)).status).toBe(200);
        const envelopes = sealFile(content, { ...resumed, key }).lanes[0] as Uint8Array[];
        const chunk = (seq: number) =>
          receiver.send(
            chunkRequest(peers.sender, {
              streamId: resumed.streamId,
              laneId: 0,
              seq: BigInt(seq),
              envelope: envelopes[seq - 1] as Uint8Array,
              signedAt: now(),
            }),
          );

        skew = 59_000;
        expect(await receiver.mounted.expireIdle()).toBe(0);
        expect((await chunk(1)).status).toBe(200);
        skew = 61_000;
        // Only the abandoned stream has been idle for a minute; the other moved at 59 s.
        expect(await receiver.mounted.expireIdle()).toBe(1);
        expect(await partials()).toEqual([`${resumed.streamId}.part`]);
        const state = await receiver.send(stateRequest(peers.sender, abandoned.streamId, now()));
        expect(state.status).toBe(404);
        // Its 200 bytes are free again (328 were held of 350), and the resumed stream finishes.
        expect((await control(receiver, peers.sender, startOf(150))).status).toBe(200);
        expect((await chunk(2)).status).toBe(200);
        const finish = { type: "finish", streamId: resumed.streamId } as const;
        expect((await control(receiver, peers.sender, finish)).status).toBe(200);
        expect(receiver.finished.map((file) => file.size)).toEqual([128]);
      },
    );
  },
);
