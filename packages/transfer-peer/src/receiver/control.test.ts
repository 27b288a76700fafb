import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { parseRequest } from "@svc/protocol";
import {
  type ControlMessage,
  encodeControlMessage,
  nextStreamStatus,
  ResumeState,
  STREAM_STATUSES,
  type StreamStatus,
} from "@svc/protocol/transfer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import {
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
  controlRequest,
  ORIGIN,
  sealFile,
  stateRequest,
} from "../test-support/signed-requests.js";

const suite: Closer[] = [];
const closers: Closer[] = [];
let peers: Peers;
beforeAll(async () => {
  peers = await startPeers(suite);
});
afterAll(() => closeAll(suite));
afterEach(() => closeAll(closers));

const MESSAGES = ["start", "pause", "resume", "finish", "abort"] as const;
type MessageType = (typeof MESSAGES)[number];
const STATES = [undefined, ...STREAM_STATUSES] as const;

function expected(state: StreamStatus | undefined, type: MessageType): StreamStatus | undefined {
  try {
    return nextStreamStatus(state, type);
  } catch {
    return undefined;
  }
}

async function expectCode(response: Response, status: number, code: string): Promise<void> {
  expect({ status: response.status, body: await response.json() }).toMatchObject({
    status,
    body: { code },
  });
}

describe.each(STORE_KINDS)("control messages with the $name", ({ open, skip }) => {
  async function receiverWithStore(): Promise<TestReceiver> {
    const openStore = await open(closers);
    const dir = await tempDir(closers, "svc-received-");
    return testReceiver({ client: peers.receiver, store: openStore(), dir, maxLanes: 4 });
  }

  const control = (receiver: TestReceiver, message: ControlMessage) =>
    sendControl(peers, receiver, message);

  /** A one-chunk stream whose chunk arrived, then moved to `state` (or only planned for none). */
  async function streamIn(receiver: TestReceiver, state: StreamStatus | undefined) {
    const content = randomBytes(40);
    const { start, key } = startFor(content, { lanes: 1, chunkBytes: 64 });
    if (state === undefined) return start;
    expect((await control(receiver, start)).status).toBe(200);
    const envelope = sealFile(content, { ...start, key }).lanes[0]?.[0] as Uint8Array;
    const chunk = chunkRequest(peers.sender, {
      streamId: start.streamId,
      laneId: 0,
      seq: 1n,
      envelope,
    });
    expect((await receiver.send(chunk)).status).toBe(200);
    const { streamId } = start;
    const path: Record<StreamStatus, ControlMessage[]> = {
      active: [],
      paused: [{ type: "pause", streamId }],
      finished: [{ type: "finish", streamId }],
      aborted: [{ type: "abort", streamId }],
    };
    for (const message of path[state]) expect((await control(receiver, message)).status).toBe(200);
    return start;
  }

  async function statusOf(
    receiver: TestReceiver,
    streamId: string,
  ): Promise<StreamStatus | undefined> {
    const response = await receiver.send(stateRequest(peers.sender, streamId));
    if (response.status === 404) return undefined;
    return parseRequest(ResumeState, await response.json()).status;
  }

  it.skipIf(skip)("moves a stream exactly as nextStreamStatus allows, 409 otherwise", async () => {
    const receiver = await receiverWithStore();
    for (const state of STATES) {
      for (const type of MESSAGES) {
        const start = await streamIn(receiver, state);
        const message: ControlMessage =
          type === "start" ? start : { type, streamId: start.streamId };
        const response = await control(receiver, message);
        const next = expected(state, type);
        const outcome = {
          state,
          type,
          status: response.status,
          after: await statusOf(receiver, start.streamId),
        };
        if (next === undefined) {
          expect(outcome).toEqual({ state, type, status: 409, after: state });
          expect(await response.json()).toMatchObject({ code: "SVC_INVALID_TRANSITION" });
        } else {
          expect(outcome).toEqual({ state, type, status: 200, after: next });
        }
      }
    }
  });

  it.skipIf(skip)(
    "refuses to finish before every chunk arrived, or with another SHA-256",
    async () => {
      const receiver = await receiverWithStore();
      const content = randomBytes(200);
      const { start, key } = startFor(content, { lanes: 2, chunkBytes: 64 });
      expect((await control(receiver, start)).status).toBe(200);
      const sealed = sealFile(content, { ...start, key });
      const { streamId } = start;
      const send = (laneId: number, seq: bigint) =>
        receiver.send(
          chunkRequest(peers.sender, {
            streamId,
            laneId,
            seq,
            envelope: sealed.lanes[laneId]?.[Number(seq) - 1] as Uint8Array,
          }),
        );
      expect((await send(0, 1n)).status).toBe(200);
      expect((await send(0, 2n)).status).toBe(200);
      await expectCode(
        await control(receiver, { type: "finish", streamId }),
        409,
        "SVC_INVALID_TRANSITION",
      );
      expect((await send(1, 1n)).status).toBe(200);
      expect((await send(1, 2n)).status).toBe(200);
      expect((await control(receiver, { type: "finish", streamId })).status).toBe(200);

      const other = startFor(content, { lanes: 1, chunkBytes: 256 });
      const lying: StartMessage = { ...other.start, sha256: "0".repeat(64) };
      expect((await control(receiver, lying)).status).toBe(200);
      const envelope = sealFile(content, { ...lying, key: other.key }).lanes[0]?.[0] as Uint8Array;
      const chunk = chunkRequest(peers.sender, {
        streamId: lying.streamId,
        laneId: 0,
        seq: 1n,
        envelope,
      });
      expect((await receiver.send(chunk)).status).toBe(200);
      await expectCode(
        await control(receiver, { type: "finish", streamId: lying.streamId }),
        409,
        "SVC_INVALID_TRANSITION",
      );
      expect(await statusOf(receiver, lying.streamId)).toBe("active");
      expect(await readdir(receiver.dir)).toEqual([".partial", "file.bin"]);
    },
  );

  it.skipIf(skip)("ignores another sender's control messages for a stream", async () => {
    const receiver = await receiverWithStore();
    const start = await streamIn(receiver, "active");
    const { streamId } = start;
    for (const message of [
      { type: "pause", streamId },
      { type: "abort", streamId },
      { type: "finish", streamId },
      start,
    ] as ControlMessage[]) {
      const request = controlRequest(
        peers.stranger.client,
        peers.stranger.address,
        peers.receiverAddress,
        message,
      );
      await expectCode(await receiver.send(request), 409, "SVC_INVALID_TRANSITION");
    }
    expect(await statusOf(receiver, streamId)).toBe("active");
  });
});

describe("the control route", () => {
  async function receiverAt(): Promise<TestReceiver> {
    const openStore = await STORE_KINDS[0]?.open(closers);
    const dir = await tempDir(closers, "svc-received-");
    return testReceiver({
      client: peers.receiver,
      store: (openStore as NonNullable<typeof openStore>)(),
      dir,
      maxLanes: 4,
      maxStreamBytes: 1000,
      maxChunkBytes: 53 + 100,
    });
  }

  const post = (headers: Record<string, string>, body: Uint8Array) =>
    new Request(`${ORIGIN}/v1/transfer/control`, { method: "POST", headers, body });
  const from = { "X-Svc-Sender-Address": "alice@example.org:1" };

  it("refuses what is not a ratchet envelope its sender sealed, once", async () => {
    const receiver = await receiverAt();
    await expectCode(
      await receiver.send(post({}, new Uint8Array([2, 1, 2]))),
      400,
      "SVC_BAD_REQUEST",
    );
    await expectCode(
      await receiver.send(post({ "X-Svc-Sender-Address": "no address" }, new Uint8Array([2]))),
      400,
      "SVC_INVALID_ADDRESS",
    );
    await expectCode(await receiver.send(post(from, new Uint8Array(0))), 400, "SVC_BAD_REQUEST");
    await expectCode(
      await receiver.send(post(from, new Uint8Array([0x11, 1]))),
      400,
      "SVC_BAD_REQUEST",
    );
    await expectCode(
      await receiver.send(post(from, randomBytes(300).fill(2, 0, 1))),
      400,
      "SVC_BAD_REQUEST",
    );
    await expectCode(
      await receiver.send(post(from, new Uint8Array(17_000).fill(2))),
      413,
      "SVC_TOO_LARGE",
    );

    const { start } = startFor(randomBytes(10), { lanes: 1, chunkBytes: 64 });
    const sealed = await controlRequest(
      peers.sender.client,
      peers.sender.address,
      peers.receiverAddress,
      start,
    );
    const bytes = new Uint8Array(await sealed.clone().arrayBuffer());
    // Sealed by alice, claimed by mallory: the envelope does not open on mallory's session.
    const claimed = post({ "X-Svc-Sender-Address": peers.stranger.address }, bytes);
    await expectCode(await receiver.send(claimed), 400, "SVC_BAD_REQUEST");
    expect((await receiver.send(sealed)).status).toBe(200);
    await expectCode(await receiver.send(post(from, bytes)), 400, "SVC_BAD_REQUEST");
  });

  it("refuses a start it cannot take: 400 for the shape or name, 413 for the size", async () => {
    const receiver = await receiverAt();
    const seal = (plaintext: Uint8Array) =>
      peers.sender.client.seal(peers.receiverAddress, plaintext).then((body) => post(from, body));
    const start = (changes: Record<string, unknown>) =>
      seal(
        encodeControlMessage({
          ...startFor(randomBytes(10), { lanes: 1, chunkBytes: 64 }).start,
          ...changes,
        } as ControlMessage),
      );
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ name: "x".repeat(241) }, 400, "SVC_BAD_REQUEST"],
      [{ lanes: 5 }, 400, "SVC_BAD_REQUEST"],
      [{ lanes: 0 }, 400, "SVC_BAD_REQUEST"],
      [{ key: "A".repeat(44) }, 400, "SVC_BAD_REQUEST"],
      [{ key: "!".repeat(44) }, 400, "SVC_BAD_REQUEST"],
      [{ size: 1001 }, 413, "SVC_TOO_LARGE"],
      [{ chunkBytes: 101 }, 413, "SVC_TOO_LARGE"],
      [{ sha256: "AB".repeat(32) }, 400, "SVC_BAD_REQUEST"],
      [{ extra: true }, 400, "SVC_BAD_REQUEST"],
      [{ streamId: "short" }, 400, "SVC_BAD_REQUEST"],
    ];
    for (const [changes, status, code] of cases) {
      await expectCode(await receiver.send(start(changes)), status, code);
    }
    await expectCode(
      await receiver.send(seal(new TextEncoder().encode("{"))),
      400,
      "SVC_BAD_REQUEST",
    );
    await expectCode(await receiver.send(seal(new Uint8Array([0xff]))), 400, "SVC_BAD_REQUEST");
    expect((await receiver.send(start({ size: 1000, chunkBytes: 100, lanes: 4 }))).status).toBe(
      200,
    );
    expect(await readdir(join(receiver.dir, ".partial"))).toHaveLength(1);
  });
});
