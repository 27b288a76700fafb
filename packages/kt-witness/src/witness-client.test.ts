import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { openNote, parseVerifierKey } from "@svc/signed-note";
import { afterEach, describe, expect, it } from "vitest";
import { witnessRoutes } from "./routes.js";
import { MemoryWitnessState } from "./state.js";
import { codeOf } from "./test-support/error-code.js";
import { testLog, testSigner } from "./test-support/log.js";
import { Witness } from "./witness.js";
import { submitCheckpoint } from "./witness-client.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A witness served by @hono/node-server on a free port of 127.0.0.1. */
async function liveWitness() {
  const log = testLog();
  const witness = new Witness({
    signer: testSigner("witness.example/w1", 6),
    logs: [log.verifier],
    state: new MemoryWitnessState(),
  });
  const url = await new Promise<string>((resolve) => {
    const server = serve(
      { fetch: witnessRoutes(witness).fetch, hostname: "127.0.0.1", port: 0 },
      (info: AddressInfo) => resolve(`http://127.0.0.1:${info.port}`),
    );
    closers.push(() => new Promise((done) => server.close(() => done())));
  });
  return { url, log, witness };
}

/** A fetch that answers every request with `status`, `body` and `contentType`. */
function answering(status: number, body: string, contentType = "text/plain"): typeof fetch {
  return async () => new Response(body, { status, headers: { "content-type": contentType } });
}

const submission = { url: "http://witness.invalid", oldSize: 0, proof: [], checkpoint: "o\n\n" };

describe("submitCheckpoint", () => {
  it("gets cosignature lines that verify once appended to the checkpoint", async () => {
    const { url, log, witness } = await liveWitness();
    const result = await submitCheckpoint({
      url: `${url}/`,
      oldSize: 0,
      proof: [],
      checkpoint: log.checkpoint(5),
    });
    expect(result.type).toBe("cosigned");
    const lines = (result as { lines: string[] }).lines;
    expect(lines).toEqual([expect.stringMatching(/^\u2014 witness\.example\/w1 \S+\n$/)]);
    const opened = openNote(log.checkpoint(5) + lines.join(""), [
      log.verifier,
      parseVerifierKey(witness.verifierKey()),
    ]);
    expect(opened.signatures.map((s) => s.name)).toEqual([log.origin, "witness.example/w1"]);
    const next = await submitCheckpoint({
      url,
      oldSize: 5,
      proof: log.proof(5, 9),
      checkpoint: log.checkpoint(9),
    });
    expect(next.type).toBe("cosigned");
  });

  it("reads a 409 as the witness's latest size, and other statuses as refusals", async () => {
    const { url, log } = await liveWitness();
    await submitCheckpoint({ url, oldSize: 0, proof: [], checkpoint: log.checkpoint(7) });
    expect(
      await submitCheckpoint({ url, oldSize: 0, proof: [], checkpoint: log.checkpoint(9) }),
    ).toEqual({ type: "conflict", size: 7 });
    const stranger = testLog({ origin: "stranger.example" });
    expect(
      await submitCheckpoint({ url, oldSize: 0, proof: [], checkpoint: stranger.checkpoint(1) }),
    ).toEqual({
      type: "refused",
      status: 404,
      message: 'unknown log origin "stranger.example"',
    });
    expect(
      await submitCheckpoint({ url, oldSize: 7, proof: [], checkpoint: log.checkpoint(9) }),
    ).toMatchObject({ type: "refused", status: 422 });
  });

  it("refuses answers of the wrong shape", async () => {
    const line = "\u2014 w AAAAAAAA\n";
    for (const [i, fetch] of [
      answering(409, "7\n", "text/plain"),
      answering(409, "07\n", "text/x.tlog.size"),
      answering(409, "7", "text/x.tlog.size"),
      answering(409, `${2 ** 53}\n`, "text/x.tlog.size"),
      answering(200, ""),
      answering(200, line.slice(0, -1)),
      answering(200, `${line}\n`),
      answering(200, "- w AAAAAAAA\n"),
      answering(200, "\u2014 w AAAA\n"),
      answering(200, "\u2014 w+x AAAAAAAA\n"),
      answering(200, "\u2014 w AAAAAAB=\n"),
      answering(200, "x".repeat(70_000)),
    ].entries()) {
      expect(await codeOf(() => submitCheckpoint({ ...submission, fetch })), `answer ${i}`).toBe(
        "WITNESS_BAD_RESPONSE",
      );
    }
    expect(
      await submitCheckpoint({
        ...submission,
        fetch: answering(409, "12\n", "text/x.tlog.size; charset=utf-8"),
      }),
    ).toEqual({ type: "conflict", size: 12 });
    expect(
      await submitCheckpoint({ ...submission, fetch: answering(200, `${line}${line}`) }),
    ).toEqual({ type: "cosigned", lines: [line, line] });
  });

  it("throws WITNESS_UNREACHABLE when nothing listens or no answer comes in time", async () => {
    const { url } = await liveWitness();
    const port = new URL(url).port;
    await closers.pop()?.();
    const closed = `http://127.0.0.1:${port}`;
    expect(await codeOf(() => submitCheckpoint({ ...submission, url: closed }))).toBe(
      "WITNESS_UNREACHABLE",
    );
    const never: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      );
    const started = Date.now();
    const slow = submitCheckpoint({ ...submission, fetch: never, timeoutMs: 50 });
    await expect(slow).rejects.toThrow(/no answer within 50 ms/);
    expect(await codeOf(() => slow)).toBe("WITNESS_UNREACHABLE");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("rejects with the reason of the caller's abort", async () => {
    const stop = new AbortController();
    const never: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      );
    const pending = submitCheckpoint({ ...submission, fetch: never, signal: stop.signal });
    stop.abort(new Error("shutting down"));
    await expect(pending).rejects.toThrow("shutting down");
  });

  it("checks its arguments before sending", async () => {
    let sent = false;
    const fetch: typeof globalThis.fetch = async () => {
      sent = true;
      return new Response("");
    };
    await expect(submitCheckpoint({ ...submission, oldSize: -1, fetch })).rejects.toThrow(
      RangeError,
    );
    expect(sent).toBe(false);
  });
});
