import { randomBytes } from "node:crypto";
import {
  encodeControlMessage,
  encodeStreamId,
  newStreamId,
  TRANSFER_HEADERS,
} from "@svc/protocol/transfer";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import {
  type Peers,
  STORE_KINDS,
  sendControl,
  startFor,
  startPeers,
  type TestReceiver,
  testReceiver,
} from "../test-support/receiver-harness.js";
import { chunkRequest, ORIGIN, sealFile } from "../test-support/signed-requests.js";

const closers: Closer[] = [];
let peers: Peers;
let receiver: TestReceiver;
let streamId: string;
let envelopes: Uint8Array[][];

beforeAll(async () => {
  peers = await startPeers(closers);
  const openStore = await STORE_KINDS[0]?.open(closers);
  const dir = await tempDir(closers, "svc-received-");
  receiver = testReceiver({
    client: peers.receiver,
    store: (openStore as NonNullable<typeof openStore>)(),
    dir,
    maxChunkBytes: 53 + 4096,
    // Fuzzed seqs are often just ahead of their lane: judged after 1 ms, not the default 2 s.
    arrivalGraceMs: 1,
  });
  const content = randomBytes(3 * 20 * 64);
  const { start, key } = startFor(content, { lanes: 3, chunkBytes: 64 });
  expect((await sendControl(peers, receiver, start)).status).toBe(200);
  streamId = start.streamId;
  envelopes = sealFile(content, { ...start, key }).lanes;
});
afterAll(() => closeAll(closers));

// 429 and 507: starts beyond what the receiver holds for a sender or for all (docs/protocol.md).
const ANSWERS = [200, 400, 401, 404, 409, 413, 429, 507];
const headerText = fc.stringMatching(/^[\x21-\x7e]{0,30}$/);

/** Every answer is one of the route's documented ones, and a refusal is an ErrorResponse. */
async function expectDocumented(response: Response): Promise<void> {
  const body = (await response.json()) as Record<string, unknown>;
  expect(ANSWERS).toContain(response.status);
  if (response.status !== 200) {
    expect(body).toMatchObject({
      code: expect.stringMatching(/^SVC_/),
      message: expect.any(String),
    });
  }
}

function flip(bytes: Uint8Array, at: number): Uint8Array {
  const copy = bytes.slice();
  if (copy.length > 0) copy[at % copy.length] = (copy[at % copy.length] as number) ^ 0xff;
  return copy;
}

describe("fuzzed transfer requests", () => {
  it("never make the chunk route fail with a 5xx", async () => {
    // Mostly well-formed and signed, so that the checks after authentication are reached too.
    const likely = <const T>(usual: T, ...others: T[]) =>
      fc.oneof({ arbitrary: fc.constant(usual), weight: 6 }, fc.constantFrom(...others));
    const request = fc.record({
      stream: likely("started", "unknown", "malformed"),
      signer: likely("sender", "stranger", "forger"),
      laneId: fc.nat(3),
      seq: fc.bigInt({ min: 1n, max: 22n }),
      body: fc.oneof(
        { arbitrary: fc.constant("own envelope" as const), weight: 6 },
        fc.record({ lane: fc.nat(2), seq: fc.nat(19) }),
        fc.record({ flipAt: fc.nat() }),
        fc.uint8Array({ maxLength: 300 }),
      ),
      signedAtSkew: likely(0, -400_000, 400_000),
      overrides: fc.oneof(
        { arbitrary: fc.constant({}), weight: 4 },
        fc.dictionary(
          fc.constantFrom(...Object.values(TRANSFER_HEADERS), "content-length"),
          fc.option(headerText, { nil: undefined }),
          { maxKeys: 2 },
        ),
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const own = envelopes[r.laneId]?.[Number(r.seq) - 1] ?? new Uint8Array(0);
        const body =
          r.body === "own envelope"
            ? own
            : r.body instanceof Uint8Array
              ? r.body
              : "flipAt" in r.body
                ? flip(own, r.body.flipAt)
                : (envelopes[r.body.lane]?.[r.body.seq] as Uint8Array);
        const signer =
          r.signer === "forger"
            ? { client: peers.stranger.client, address: peers.sender.address }
            : peers[r.signer];
        const id = r.stream === "started" ? streamId : r.stream === "unknown" ? newStreamId() : "x";
        const built = await chunkRequest(signer, {
          streamId: r.stream === "malformed" ? streamId : id,
          laneId: r.laneId,
          seq: r.seq,
          envelope: body,
          signedAt: Date.now() + r.signedAtSkew,
          headers: r.overrides,
        });
        const url = r.stream === "malformed" ? built.url.replace(streamId, "x") : built.url;
        const sent = new Request(url, { method: "POST", headers: built.headers, body });
        await expectDocumented(await receiver.send(sent));
      }),
      { numRuns: 300 },
    );
  });

  it("never make the control route fail with a 5xx", async () => {
    const freshId = fc.uint8Array({ minLength: 16, maxLength: 16 }).map(encodeStreamId);
    const id = fc.oneof(fc.constant(streamId), freshId, fc.string({ maxLength: 30 }));
    const key = fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((k) => Buffer.from(k).toString("base64"));
    const sha256 = fc.stringMatching(/^[0-9a-f]{64}$/);
    const valid = fc.oneof(
      fc.record(
        {
          type: fc.constant("start"),
          streamId: freshId,
          name: fc.string({ maxLength: 40 }),
          size: fc.nat(5000),
          // A version 1 start (with sha256) or a version 2 one (version, no sha256).
          version: fc.constant(2),
          sha256,
          lanes: fc.integer({ min: 1, max: 80 }),
          chunkBytes: fc.integer({ min: 1, max: 5000 }),
          key,
        },
        { requiredKeys: ["type", "streamId", "name", "size", "lanes", "chunkBytes", "key"] },
      ),
      fc.record({ type: fc.constantFrom("pause", "resume", "finish"), streamId: id }),
      fc.record({ type: fc.constant("finish"), streamId: id, sha256 }),
      fc.record({ type: fc.constant("rekey"), streamId: id, key }),
      fc.record({ type: fc.constant("abort"), streamId: id, reason: fc.string({ maxLength: 20 }) }),
    );
    const anything = fc.record(
      {
        type: fc.constantFrom("start", "pause", "rekey", "finish", "other"),
        version: fc.oneof(fc.constant(2), fc.integer({ min: -1, max: 3 }), fc.string()),
        streamId: id,
        name: fc.string({ maxLength: 40 }),
        size: fc.oneof(fc.nat(5000), fc.double()),
        lanes: fc.integer({ min: -1, max: 100 }),
        chunkBytes: fc.integer({ min: -1, max: 1 << 24 }),
        key: fc.string({ maxLength: 50 }),
      },
      { requiredKeys: ["type"] },
    );
    const message = fc.oneof({ arbitrary: valid, weight: 3 }, anything);
    const request = fc.record({
      from: fc.oneof(
        { arbitrary: fc.constant("sender"), weight: 4 },
        fc.constant("stranger"),
        headerText,
      ),
      body: fc.oneof(
        { arbitrary: message.map((m) => ({ sealed: m as unknown })), weight: 4 },
        fc.uint8Array({ maxLength: 500 }).map((bytes) => ({ raw: bytes })),
        fc.uint8Array({ maxLength: 500 }).map((bytes) => ({ raw: Uint8Array.of(2, ...bytes) })),
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const from = r.from === "sender" || r.from === "stranger" ? peers[r.from].address : r.from;
        const body =
          "sealed" in r.body
            ? await peers.sender.client.seal(
                peers.receiverAddress,
                encodeControlMessage(r.body.sealed as never),
              )
            : r.body.raw;
        const sent = new Request(`${ORIGIN}/v1/transfer/control`, {
          method: "POST",
          headers: { [TRANSFER_HEADERS.senderAddress]: from },
          body,
        });
        await expectDocumented(await receiver.send(sent));
      }),
      { numRuns: 200 },
    );
    // A valid message costs an X3DH and a ratchet step in pure JavaScript: 20 s was too little
    // on a 2-core machine running every test file at once.
  }, 120_000);
});
