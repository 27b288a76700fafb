import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { type LaneCursors, sha256Hex } from "@svc/protocol/transfer";
import { afterEach, describe, expect, it } from "vitest";
import {
  FakeReceiver,
  fakeSenderClient,
  json,
  type SeenRequest,
} from "../test-support/sender/fake-receiver.js";
import { TransferError } from "./errors.js";
import type { ResumeInfo, SendOptions } from "./options.js";
import type { Progress } from "./progress.js";
import type { RecoveryNotice, RetryNotice } from "./retry.js";
import { sendFile } from "./transfer.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function fileOf(content: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "svc-sender-test-"));
  dirs.push(dir);
  const path = join(dir, "file.bin");
  await writeFile(path, content);
  return path;
}

function options(receiver: FakeReceiver, extra: Partial<SendOptions> = {}): SendOptions {
  return {
    client: fakeSenderClient(),
    to: "bob@example.org:1",
    peer: "http://receiver.test",
    fetch: receiver.fetch,
    lanes: 3,
    chunkBytes: 1000,
    retry: { attempts: 4, baseMs: 1, maxMs: 5 },
    ...extra,
  };
}

const chunk = (laneId: number, seq: bigint) => (r: SeenRequest) =>
  r.kind === "chunk" && r.laneId === laneId && r.seq === seq;

/** A fault that answers the first `times` requests matching `match` with `answer`. */
function times(
  count: number,
  match: (r: SeenRequest) => boolean,
  answer: () => Response | "reset",
) {
  let left = count;
  return (r: SeenRequest) => (match(r) && left-- > 0 ? answer() : undefined);
}

describe("sendFile", () => {
  it("sends every chunk once, on lane i mod lanes, then finishes", async () => {
    const content = randomBytes(25_500);
    const receiver = new FakeReceiver();
    const transfer = sendFile(await fileOf(content), options(receiver));
    const progress: Progress[] = [];
    transfer.on("progress", (p) => progress.push(p));
    const result = await transfer.done;
    expect(result).toMatchObject({
      streamId: transfer.streamId,
      bytes: 25_500,
      sha256: sha256Hex(content),
      resumedBytes: 0,
    });
    expect(receiver.data).toEqual(new Uint8Array(content));
    expect(receiver.start).toMatchObject({
      name: "file.bin",
      size: 25_500,
      lanes: 3,
      chunkBytes: 1000,
    });
    expect(receiver.controls()).toEqual(["start", "finish"]);
    expect(receiver.status).toBe("finished");
    const posts = receiver.chunkPosts();
    expect(posts.size).toBe(26);
    expect([...posts.values()].every((n) => n === 1)).toBe(true);
    expect(posts.has("1/9")).toBe(true);
    expect(posts.has("2/9")).toBe(false);
    expect(progress.at(-1)).toMatchObject({ bytes: 25_500, total: 25_500 });
  });

  it("sends an empty file as a start and a finish", async () => {
    const receiver = new FakeReceiver();
    const result = await sendFile(await fileOf(new Uint8Array(0)), options(receiver)).done;
    expect(result.bytes).toBe(0);
    expect(receiver.controls()).toEqual(["start", "finish"]);
  });

  it("spools a stream to a temporary file, hashing it, and sends that", async () => {
    const content = randomBytes(10_000);
    const receiver = new FakeReceiver();
    const stream = Readable.from([content.subarray(0, 3000), content.subarray(3000)]);
    const result = await sendFile(stream, options(receiver, { name: "piped.bin" })).done;
    expect(result.sha256).toBe(sha256Hex(content));
    expect(receiver.start?.name).toBe("piped.bin");
    expect(receiver.data).toEqual(new Uint8Array(content));
    expect(() => sendFile(Readable.from([content]), options(receiver))).not.toThrow();
  });

  it("refuses to send a stream without a name", async () => {
    const receiver = new FakeReceiver();
    const done = sendFile(Readable.from([new Uint8Array(3)]), options(receiver)).done;
    await expect(done).rejects.toThrow(/options.name is required/);
  });

  it("skips chunks the receiver already has and resends those it lacks (409)", async () => {
    const content = randomBytes(12_000);
    const receiver = new FakeReceiver();
    // Lane 0's seq 2 is answered 409 REPLAY with the receiver at 3: the lane goes on at 4 (seq 3
    // was sent once already, in flight beside seq 2).
    // Lane 1's seq 3 is answered 409 OUT_OF_ORDER by a receiver that lost seq 2: sent behind seq
    // 2, that answer is first taken for a stale one and seq 3 goes again alone; refused again,
    // the lane goes back to seq 2.
    receiver.faults.push(
      times(1, chunk(0, 2n), () => {
        receiver.cursors?.accept(0, 2n);
        receiver.cursors?.accept(0, 3n);
        return json(409, { name: "Conflict", code: "SVC_REPLAY", message: "", lastSeqAcked: "3" });
      }),
      times(1, chunk(1, 3n), () => {
        (receiver.cursors as LaneCursors).lastSeqAcked[1] = 1n;
        return json(409, {
          name: "Conflict",
          code: "SVC_OUT_OF_ORDER",
          message: "",
          lastSeqAcked: "1",
        });
      }),
    );
    await sendFile(await fileOf(content), options(receiver)).done;
    const posts = receiver.chunkPosts();
    expect(posts.get("0/2")).toBe(1);
    expect(posts.get("0/3")).toBe(1);
    expect(posts.get("0/4")).toBe(1);
    expect(posts.get("1/2")).toBe(2);
    expect(posts.get("1/3")).toBe(3);
    expect(receiver.status).toBe("finished");
  });

  it("retries 503s (after Retry-After), 500s and connection resets", async () => {
    const content = randomBytes(6000);
    const receiver = new FakeReceiver();
    receiver.faults.push(
      times(1, chunk(0, 1n), () =>
        json(
          503,
          { name: "Unavailable", code: "SVC_UNAVAILABLE", message: "" },
          { "retry-after": "1" },
        ),
      ),
      times(2, chunk(1, 1n), () => "reset"),
      times(1, chunk(2, 2n), () => new Response("proxy error", { status: 502 })),
      times(
        1,
        (r) => r.control === "start",
        () => "reset",
      ),
    );
    const transfer = sendFile(await fileOf(content), options(receiver));
    const retries: RetryNotice[] = [];
    transfer.on("retry", (notice) => retries.push(notice));
    const recoveries: RecoveryNotice[] = [];
    transfer.on("recovered", (notice) => recoveries.push(notice));
    const started = performance.now();
    await transfer.done;
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(receiver.data).toEqual(new Uint8Array(content));
    expect(retries.map((r) => r.request).sort()).toEqual([
      "chunk lane 0 seq 1",
      "chunk lane 1 seq 1",
      "chunk lane 1 seq 1",
      "chunk lane 2 seq 2",
      "control start",
    ]);
    expect(retries.find((r) => r.request === "chunk lane 0 seq 1")?.delayMs).toBe(1000);
    expect(retries.find((r) => r.request === "chunk lane 1 seq 1")?.reason).toMatch(/ECONNRESET/);
    expect(recoveries.sort((a, b) => a.request.localeCompare(b.request))).toEqual([
      { request: "chunk lane 0 seq 1", attempt: 2 },
      { request: "chunk lane 1 seq 1", attempt: 3 },
      { request: "chunk lane 2 seq 2", attempt: 2 },
      { request: "control start", attempt: 2 },
    ]);
  });

  it("refuses a receiver that serves another address before sending anything", async () => {
    const receiver = new FakeReceiver();
    receiver.address = "carol@example.org:1";
    const done = sendFile(await fileOf(randomBytes(5000)), options(receiver)).done;
    await expect(done).rejects.toMatchObject({
      code: "WRONG_RECEIVER",
      message:
        "the receiver at http://receiver.test is carol@example.org:1's, not bob@example.org:1's: check the address and the peer URL",
    });
    expect(receiver.seen).toEqual([]);

    receiver.address = "bob@example.org:1";
    await sendFile(await fileOf(randomBytes(5000)), options(receiver)).done;
    expect(receiver.status).toBe("finished");
  });

  it("gives up after retry.attempts with UNAVAILABLE, leaving the stream to resume", async () => {
    const receiver = new FakeReceiver();
    receiver.faults.push(times(100, chunk(2, 1n), () => "reset"));
    const done = sendFile(await fileOf(randomBytes(5000)), options(receiver)).done;
    await expect(done).rejects.toMatchObject({ code: "UNAVAILABLE" });
    expect(receiver.chunkPosts().get("2/1")).toBe(4);
    expect(receiver.controls()).toEqual(["start"]);
  });

  it("fails at once on a 4xx other than 409 and 429, naming the receiver's code", async () => {
    const receiver = new FakeReceiver();
    receiver.faults.push(
      times(1, chunk(1, 1n), () =>
        json(401, { name: "Unauthorized", code: "SVC_BAD_SIGNATURE", message: "bad signature" }),
      ),
    );
    const done = sendFile(await fileOf(randomBytes(5000)), options(receiver)).done;
    await expect(done).rejects.toThrow(TransferError);
    await expect(done).rejects.toMatchObject({ code: "REFUSED" });
    await expect(done).rejects.toThrow(
      /chunk lane 1 seq 1: the receiver answered 401 SVC_BAD_SIGNATURE/,
    );
    expect(receiver.chunkPosts().get("1/1")).toBe(1);
  });

  it("pauses after the chunks in flight and resumes on resume()", async () => {
    const content = randomBytes(30_000);
    const receiver = new FakeReceiver();
    const transfer = sendFile(await fileOf(content), options(receiver));
    const paused = new Promise<void>((resolve, reject) => {
      transfer.on("progress", ({ bytes }) => {
        if (bytes >= 6000 && receiver.controls().length === 1) {
          transfer.pause().then(resolve, reject);
        }
      });
    });
    await paused;
    expect(receiver.status).toBe("paused");
    const sentWhenPaused = receiver.seen.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.seen.length).toBe(sentWhenPaused);
    await transfer.resume();
    await transfer.done;
    expect(receiver.controls()).toEqual(["start", "pause", "resume", "finish"]);
    expect(receiver.data).toEqual(new Uint8Array(content));
    expect(receiver.chunkPosts().size).toBe(30);
  });

  it("aborts: tells the receiver and rejects done with ABORTED", async () => {
    const receiver = new FakeReceiver();
    const transfer = sendFile(await fileOf(randomBytes(30_000)), options(receiver));
    transfer.once("progress", () => void transfer.abort("changed my mind"));
    await expect(transfer.done).rejects.toMatchObject({
      code: "ABORTED",
      message: "the transfer was aborted: changed my mind",
    });
    expect(receiver.status).toBe("aborted");
    expect(receiver.controls()).toEqual(["start", "abort"]);
  });

  it("stops on the caller's signal without telling the receiver", async () => {
    const receiver = new FakeReceiver();
    const controller = new AbortController();
    const transfer = sendFile(
      await fileOf(randomBytes(30_000)),
      options(receiver, { signal: controller.signal }),
    );
    transfer.on("progress", ({ bytes }) => {
      if (bytes > 3000) controller.abort(new Error("stop"));
    });
    await expect(transfer.done).rejects.toThrow("stop");
    expect(receiver.status).toBe("active");
    expect(receiver.controls()).toEqual(["start"]);
  });

  it("resumes at every lane's lastSeqAcked + 1 and reports resumedBytes", async () => {
    const content = randomBytes(20_000);
    const path = await fileOf(content);
    const receiver = new FakeReceiver();
    const controller = new AbortController();
    const first = sendFile(path, options(receiver, { signal: controller.signal }));
    let info: ResumeInfo | undefined;
    first.on("started", (stream) => {
      info = stream;
    });
    first.on("progress", ({ bytes }) => {
      if (bytes >= 8000) controller.abort();
    });
    await expect(first.done).rejects.toThrow();
    const acked = receiver.chunkPosts();
    const before = receiver.seen.length;

    const second = sendFile(
      path,
      options(receiver, { resume: info, lanes: undefined, chunkBytes: undefined }),
    );
    const result = await second.done;
    expect(result.resumedBytes).toBeGreaterThanOrEqual(8000);
    expect(receiver.data).toEqual(new Uint8Array(content));
    const again = receiver.seen.slice(before).filter((r) => r.kind === "chunk");
    expect(again.some((r) => acked.has(`${r.laneId}/${r.seq}`))).toBe(false);
    expect(receiver.controls()).toEqual(["start", "finish"]);
  });

  it("resumes a stream left paused, and one already finished resolves at once", async () => {
    const content = randomBytes(9000);
    const path = await fileOf(content);
    const receiver = new FakeReceiver();
    const controller = new AbortController();
    const first = sendFile(path, options(receiver, { signal: controller.signal }));
    const info = await new Promise<ResumeInfo>((resolve) => first.on("started", resolve));
    await first.pause();
    controller.abort();
    await expect(first.done).rejects.toThrow();
    expect(receiver.status).toBe("paused");

    const resume = { resume: info, lanes: undefined, chunkBytes: undefined };
    const second = await sendFile(path, options(receiver, resume)).done;
    expect(receiver.controls()).toEqual(["start", "pause", "resume", "finish"]);
    expect(receiver.data).toEqual(new Uint8Array(content));
    expect(second.resumedBytes).toBeLessThan(9000);

    const third = await sendFile(path, options(receiver, resume)).done;
    expect(third).toMatchObject({ bytes: 9000, resumedBytes: 9000 });
    expect(receiver.controls()).toHaveLength(4);
  });

  it("says so when the stream to resume is unknown to the receiver", async () => {
    const receiver = new FakeReceiver();
    const content = randomBytes(100);
    const resume = {
      streamId: "AAAAAAAAAAAAAAAAAAAAAA",
      key: new Uint8Array(32),
      lanes: 3,
      chunkBytes: 1000,
      sha256: sha256Hex(content),
    };
    const done = sendFile(await fileOf(content), options(receiver, { resume })).done;
    await expect(done).rejects.toMatchObject({ code: "STREAM_NOT_FOUND" });
    await expect(done).rejects.toThrow(/send the file again without resume/);
  });

  it("refuses to resume with another file, or with other lanes than the stream's", async () => {
    const receiver = new FakeReceiver();
    const resume = {
      streamId: "AAAAAAAAAAAAAAAAAAAAAA",
      key: new Uint8Array(32),
      lanes: 3,
      chunkBytes: 1000,
      sha256: "0".repeat(64),
    };
    const path = await fileOf(randomBytes(100));
    await expect(sendFile(path, options(receiver, { resume })).done).rejects.toMatchObject({
      code: "SOURCE_CHANGED",
    });
    expect(() => sendFile(path, options(receiver, { resume, lanes: 4 }))).toThrow(
      /options.lanes is 4, but the stream being resumed was started with 3/,
    );
  });
});
