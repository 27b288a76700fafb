import { openNote, parseVerifierKey } from "@svc/signed-note";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { formatAddCheckpoint } from "./add-checkpoint.js";
import { MAX_ADD_CHECKPOINT_BYTES, type WitnessOutcome, witnessRoutes } from "./routes.js";
import { MemoryWitnessState, type WitnessState } from "./state.js";
import { testLog, testSigner } from "./test-support/log.js";
import { Witness } from "./witness.js";

const TEXT = "text/plain; charset=utf-8";

function setup(state: WitnessState = new MemoryWitnessState()) {
  const log = testLog();
  const witness = new Witness({ signer: testSigner("w.example", 8), logs: [log.verifier], state });
  const outcomes: WitnessOutcome[] = [];
  const errors: unknown[] = [];
  const app = witnessRoutes(witness, {
    onAnswer: (outcome) => outcomes.push(outcome),
    onError: (error) => errors.push(error),
  });
  const post = (
    body: string | Uint8Array | ReadableStream<Uint8Array>,
    headers: Record<string, string> = {},
  ) =>
    app.request("/add-checkpoint", {
      method: "POST",
      body,
      headers,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
  return { app, log, witness, outcomes, errors, post };
}

async function expectText(response: Response, status: number, body: RegExp | string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe(TEXT);
  const text = await response.text();
  if (typeof body === "string") expect(text).toBe(body);
  else expect(text).toMatch(body);
}

describe("witnessRoutes", () => {
  it("answers GET /health", async () => {
    const response = await setup().app.request("/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers 200 with the cosignature lines as UTF-8 text", async () => {
    const { post, log, witness, outcomes } = setup();
    const response = await post(log.body(0, 4));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(TEXT);
    const lines = await response.text();
    expect(lines).toMatch(/^\u2014 w\.example [A-Za-z0-9+/]+=*\n$/);
    const opened = openNote(log.checkpoint(4) + lines, [parseVerifierKey(witness.verifierKey())]);
    expect(opened.signatures).toHaveLength(1);
    expect(outcomes).toEqual([
      expect.objectContaining({ status: 200, origin: log.origin, size: 4 }),
    ]);
  });

  it("answers 409 with the latest size as text/x.tlog.size", async () => {
    const { post, log } = setup();
    await post(log.body(0, 9));
    for (const body of [log.body(0, 10), log.body(3, 10)]) {
      const response = await post(body);
      expect(response.status).toBe(409);
      expect(response.headers.get("content-type")).toBe("text/x.tlog.size");
      expect(await response.text()).toBe("9\n");
    }
  });

  it("answers 400, 403, 404 and 422 with a message as text", async () => {
    const { post, log, outcomes } = setup();
    await expectText(await post("old 1\n"), 400, /^the consistency proof lines end/);
    await expectText(await post(testLog({ origin: "nope" }).body(0, 1)), 404, /unknown log origin/);
    const impostor = testLog({ keyFill: 77 });
    await expectText(await post(impostor.body(0, 1)), 403, /no valid signature/);
    await post(log.body(0, 5));
    const badProof = formatAddCheckpoint({
      oldSize: 5,
      proof: log.proof(4, 8),
      checkpoint: log.checkpoint(8),
    });
    await expectText(await post(badProof), 422, /does not verify\n$/);
    await expectText(
      await post(new Uint8Array([0x6f, 0xff, 0x0a])),
      400,
      "the body is not UTF-8\n",
    );
    expect(outcomes.map((o) => o.status)).toEqual([400, 404, 403, 200, 422, 400]);
  });

  it("answers 413 for a body over 256 KiB, from Content-Length, without reading it", async () => {
    const { post, outcomes } = setup();
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const response = await post(endless, {
      "content-length": String(MAX_ADD_CHECKPOINT_BYTES + 1),
    });
    await expectText(response, 413, /larger than 262144 bytes/);
    // A ReadableStream pulls once on its own to fill its queue; the route reads nothing.
    expect(pulled).toBeLessThanOrEqual(1);
    expect(outcomes).toEqual([expect.objectContaining({ status: 413 })]);
  });

  it("answers 413 for a chunked body as soon as it passes 256 KiB", async () => {
    const { post } = setup();
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 4096;
        controller.enqueue(new Uint8Array(4096).fill(0x41));
      },
    });
    await expectText(await post(endless), 413, /larger than/);
    expect(sent).toBeLessThan(MAX_ADD_CHECKPOINT_BYTES + 3 * 4096);
    // Exactly the limit is read, and judged as a request.
    const atLimit = `old 0\n\n${"x".repeat(MAX_ADD_CHECKPOINT_BYTES - 8)}\n`;
    expect(new TextEncoder().encode(atLimit).length).toBe(MAX_ADD_CHECKPOINT_BYTES);
    expect((await post(atLimit)).status).toBe(404);
  });

  it("mounts under a submission prefix", async () => {
    const { witness, log } = setup();
    const app = new Hono().route("/witness/v1", witnessRoutes(witness));
    const response = await app.request("/witness/v1/add-checkpoint", {
      method: "POST",
      body: log.body(0, 3),
    });
    expect(response.status).toBe(200);
    expect((await app.request("/add-checkpoint", { method: "POST", body: "" })).status).toBe(404);
  });

  it("answers 500 when the state cannot be written, and reports the error", async () => {
    const failing: WitnessState = {
      read: async () => undefined,
      write: () => Promise.reject(new Error("disk full")),
    };
    const { post, log, errors } = setup(failing);
    await expectText(await post(log.body(0, 3)), 500, "internal error\n");
    expect(errors).toEqual([new Error("disk full")]);
  });
});
