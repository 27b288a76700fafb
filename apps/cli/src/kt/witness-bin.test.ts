import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatAddCheckpoint, submitCheckpoint } from "@svc/kt-witness";
import { notPrivateUnder } from "@svc/node-kit";
import { spawnNode } from "@svc/processes";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../exit.js";
import { type Closer, tempDir, testLog } from "../test-support/witness.js";

const BIN = fileURLToPath(new URL("../../bin/svc-kt.js", import.meta.url));
/** The bin runs the build (dist/), which `pnpm build` (or `pnpm svc-kt`) makes; CI builds first. */
const built = existsSync(fileURLToPath(new URL("../../dist/kt/witness.js", import.meta.url)));

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** `node bin/svc-kt.js witness <args> --json --port 0` as a shell would start it. */
async function spawnWitness(args: string[]) {
  const witness = spawnNode(BIN, ["witness", ...args, "--json", "--port", "0"], { closers });
  const url = await witness.listening();
  const events = () => witness.jsonLines().slice(1);
  return { ...witness, url, events };
}

describe.skipIf(!built)("the svc-kt witness binary (dist/, after pnpm build)", () => {
  const log = testLog();

  it("keeps its state across kill -9: a rolled-back checkpoint is still refused", async () => {
    const dir = await tempDir(closers, "svc-kt-witness-bin-");
    const first = await spawnWitness(["--log", log.key, "--dir", dir]);
    const add = (url: string, oldSize: number, size: number) =>
      submitCheckpoint({
        url,
        oldSize,
        proof: log.proof(oldSize, size),
        checkpoint: log.checkpoint(size),
      });
    expect((await add(first.url, 0, 10)).type).toBe("cosigned");
    expect((await add(first.url, 10, 20)).type).toBe("cosigned");
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe(null);

    // Its lock names a dead process: taken over.
    const second = await spawnWitness(["--log", log.key, "--dir", dir]);
    expect(await add(second.url, 0, 15)).toEqual({ type: "conflict", size: 20 });
    expect(await add(second.url, 10, 15)).toEqual({ type: "conflict", size: 20 });
    const rolledBack = formatAddCheckpoint({
      oldSize: 20,
      proof: [],
      checkpoint: log.checkpoint(15),
    });
    const response = await fetch(`${second.url}/add-checkpoint`, {
      method: "POST",
      body: rolledBack,
    });
    expect(response.status).toBe(400);
    const split = testLog("forged");
    const forged = await submitCheckpoint({
      url: second.url,
      oldSize: 20,
      proof: split.proof(20, 25),
      checkpoint: split.checkpoint(25),
    });
    expect(forged).toMatchObject({ type: "refused", status: 422 });
    expect((await add(second.url, 20, 25)).type).toBe("cosigned");
    expect(second.events().map((e) => [e.event, e.status ?? e.size])).toEqual([
      ["refused", 409],
      ["refused", 409],
      ["refused", 400],
      ["refused", 422],
      ["cosigned", 25],
    ]);
  });

  it("keeps its key and state private, started with umask 000", async () => {
    const dir = join(await tempDir(closers, "svc-kt-witness-bin-private-"), "witness");
    // The child inherits this umask, the most permissive there is.
    const umask = process.umask(0);
    let witness: Awaited<ReturnType<typeof spawnWitness>>;
    try {
      witness = await spawnWitness(["--log", log.key, "--dir", dir]);
    } finally {
      process.umask(umask);
    }
    const added = await submitCheckpoint({
      url: witness.url,
      oldSize: 0,
      proof: log.proof(0, 10),
      checkpoint: log.checkpoint(10),
    });
    expect(added.type).toBe("cosigned");
    expect(await notPrivateUnder(dir)).toEqual([]);
    witness.child.kill("SIGTERM");
    expect(await witness.exited).toBe(EXIT.ok);
    expect(await notPrivateUnder(dir)).toEqual([]);
  });

  it("stops with exit 0 on SIGTERM and on SIGINT, and exits 1 on a locked directory", async () => {
    const dir = await tempDir(closers, "svc-kt-witness-bin-stop-");
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const witness = await spawnWitness(["--log", log.key, "--dir", dir]);
      expect((await fetch(`${witness.url}/health`)).status).toBe(200);
      if (signal === "SIGTERM") {
        const locked = spawnNode(BIN, ["witness", "--log", log.key, "--dir", dir], { closers });
        expect(await locked.exited).toBe(EXIT.failure);
      }
      witness.child.kill(signal);
      expect(await witness.exited).toBe(EXIT.ok);
      expect(witness.out.stderr).toBe("");
    }
  });
});
