import { chmod, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { until } from "@svc/db/testing";
import { submitCheckpoint } from "@svc/kt-witness";
import {
  COSIGNATURE_V1_TYPE,
  formatVerifierKey,
  openNote,
  parseSignerKey,
  parseVerifierKey,
} from "@svc/signed-note";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../exit.js";
import { ALIASES } from "../programs.js";
import { type Closer, tempDir, testLog } from "../test-support/witness.js";
import { ktUsage } from "./args.js";
import { runKtCli } from "./run.js";

const SVC_KT = ALIASES["svc-kt"];
const USAGE = ktUsage(SVC_KT.name);

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** `svc-kt witness <args>` in this process, stopped (and awaited) after the test. */
function startWitness(args: string[], env: Record<string, string> = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const stop = new AbortController();
  const exited = runKtCli(SVC_KT, ["witness", ...args], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    signal: stop.signal,
    env,
  });
  closers.push(async () => {
    stop.abort();
    await exited;
  });
  return { stdout, stderr, stop, exited };
}

/** Its URL and verifier key, from the --json listening line. */
async function listening(witness: ReturnType<typeof startWitness>) {
  await until(() => witness.stdout.length > 0 || witness.stderr.length > 0, 15_000);
  const line = JSON.parse(witness.stdout[0] ?? "{}");
  expect(line).toMatchObject({ event: "listening", url: expect.stringMatching(/^http:\/\//) });
  return line as { url: string; verifierKey: string };
}

async function run(args: string[], env: Record<string, string> = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runKtCli(SVC_KT, ["witness", ...args], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env,
  });
  return { code, stdout, stderr };
}

describe("svc-kt witness", () => {
  const log = testLog();

  it("exits 2 on usage errors", async () => {
    const cosigner = formatVerifierKey(log.origin, new Uint8Array(32).fill(3), COSIGNATURE_V1_TYPE);
    for (const [args, why] of [
      [[], /at least one --log/],
      [["--dir", "x"], /at least one --log/],
      [["--log", "garbage"], /--log garbage: not a verifier key/],
      [["--log", cosigner], /type 0x01/],
      [["--log", log.key, "--port", "65536"], /--port/],
      [["--log", log.key, "--port", "-1"], /--port/],
      [["--log", log.key, "--port", "80a"], /--port/],
      [["--log", log.key, "--name", "a+b"], /--name/],
      [["--log", log.key, "--name", ""], /--name/],
      [["--log", log.key, "--host", ""], /--host/],
      [["--log", log.key, "--bogus"], /bogus/],
      [["--log", log.key, "serve"], /serve/],
    ] as const) {
      const { code, stderr, stdout } = await run([...args]);
      expect(code, args.join(" ")).toBe(EXIT.usage);
      expect(stderr.join("\n")).toMatch(why);
      expect(stderr.join("\n")).toMatch(/usage: svc-kt monitor[\s\S]*svc-kt witness --log/);
      expect(stdout).toEqual([]);
    }
    const help = await run(["--help"]);
    expect(help).toEqual({ code: EXIT.ok, stdout: [USAGE], stderr: [] });
    expect(USAGE).toMatch(/1 .*or the witness could not start\n.*port in use, bad key/);
  });

  it("--print-key makes the key once (0600) and prints the same verifier key every time", async () => {
    const home = await tempDir(closers, "svc-kt-witness-key-");
    const env = { SVC_WITNESS_DIR: join(home, "w") };
    const first = await run(["--print-key"], env);
    expect(first.code).toBe(EXIT.ok);
    expect(first.stdout).toEqual([expect.stringMatching(/^svc-witness\+[0-9a-f]{8}\+/)]);
    const keyFile = join(home, "w", "witness-key");
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const signer = parseSignerKey((await readFile(keyFile, "utf8")).trim());
    expect(first.stdout[0]).toBe(
      formatVerifierKey("svc-witness", signer.publicKey, COSIGNATURE_V1_TYPE),
    );
    expect(await run(["--print-key", "--log", log.key], env)).toEqual(first);
    expect((await run(["--print-key", "--dir", join(home, "w")])).stdout).toEqual(first.stdout);
    // Another directory, another key; --name names a new one.
    const named = await run(["--print-key", "--dir", join(home, "n"), "--name", "w.example/1"]);
    expect(named.stdout).toEqual([expect.stringMatching(/^w\.example\/1\+/)]);
    expect(named.stdout).not.toEqual(first.stdout);
  });

  it("exits 1 for a key file of another name, or one that others may read", async () => {
    const home = await tempDir(closers, "svc-kt-witness-bad-key-");
    await run(["--print-key", "--dir", home]);
    const other = await run(["--print-key", "--dir", home, "--name", "other", "--json"]);
    expect(other.code).toBe(EXIT.failure);
    expect(JSON.parse(other.stderr[0] ?? "")).toMatchObject({
      event: "error",
      code: "WITNESS_KEY_FILE",
      message: expect.stringMatching(/holds the key of svc-witness, not other/),
    });
    await chmod(join(home, "witness-key"), 0o644);
    const open = await run(["--log", log.key, "--dir", home, "--port", "0"]);
    expect(open.code).toBe(EXIT.failure);
    expect(open.stderr).toEqual([
      expect.stringMatching(/^svc-kt: error: WITNESS_KEY_FILE: .*readable by other users/),
    ]);
  });

  it("cosigns a checkpoint over HTTP and logs each request, then stops with exit 0", async () => {
    const home = await tempDir(closers, "svc-kt-witness-serve-");
    const witness = startWitness(["--log", log.key, "--port", "0", "--json"], {
      SVC_WITNESS_DIR: home,
    });
    const { url, verifierKey } = await listening(witness);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const result = await submitCheckpoint({
      url,
      oldSize: 0,
      proof: [],
      checkpoint: log.checkpoint(8),
    });
    expect(result.type).toBe("cosigned");
    const lines = (result as { lines: string[] }).lines.join("");
    const opened = openNote(log.checkpoint(8) + lines, [parseVerifierKey(verifierKey)]);
    expect(opened.signatures).toEqual([expect.objectContaining({ name: "svc-witness" })]);
    expect(
      await submitCheckpoint({ url, oldSize: 0, proof: [], checkpoint: log.checkpoint(9) }),
    ).toEqual({ type: "conflict", size: 8 });
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toEqual({ status: "ok" });
    witness.stop.abort();
    expect(await witness.exited).toBe(EXIT.ok);
    expect(witness.stdout.slice(1).map((line) => JSON.parse(line))).toEqual([
      { event: "cosigned", origin: log.origin, size: 8 },
      {
        event: "refused",
        origin: log.origin,
        status: 409,
        message: "the old size 0 is not the latest cosigned size 8",
      },
    ]);
    expect(witness.stderr).toEqual([]);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it("prints text lines without --json", async () => {
    const home = await tempDir(closers, "svc-kt-witness-text-");
    const witness = startWitness(["--log", log.key, "--port", "0", "--dir", home]);
    await until(() => witness.stdout.length > 0, 15_000);
    const match = /^witness (svc-witness\+\S+) listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(
      witness.stdout[0] ?? "",
    );
    expect(match).not.toBeNull();
    const url = match?.[2] as string;
    await submitCheckpoint({ url, oldSize: 0, proof: [], checkpoint: log.checkpoint(3) });
    await submitCheckpoint({ url, oldSize: 3, proof: [], checkpoint: log.checkpoint(5) });
    await submitCheckpoint({ url, oldSize: 0, proof: [], checkpoint: "nope\n\n" });
    await until(() => witness.stdout.length === 4, 15_000);
    expect(witness.stdout.slice(1)).toEqual([
      "cosigned log.example/kt at size 3",
      "refused log.example/kt (422): the consistency proof from 3 to 5 does not verify",
      'refused a checkpoint (404): unknown log origin "nope"',
    ]);
  });

  it("exits 1 when its state directory is in use or its port is taken", async () => {
    const home = await tempDir(closers, "svc-kt-witness-busy-");
    const first = startWitness(["--log", log.key, "--port", "0", "--json", "--dir", home]);
    const { url } = await listening(first);
    const locked = await run(["--log", log.key, "--port", "0", "--dir", home, "--json"]);
    expect(locked.code).toBe(EXIT.failure);
    expect(JSON.parse(locked.stderr[0] ?? "")).toMatchObject({ code: "WITNESS_STATE_LOCKED" });
    const port = new URL(url).port;
    const other = join(await tempDir(closers, "svc-kt-witness-other-"), "witness");
    const taken = await run(["--log", log.key, "--port", port, "--dir", other, "--json"]);
    expect(taken.code).toBe(EXIT.failure);
    expect(taken.stderr.map((line) => JSON.parse(line))).toEqual([
      {
        event: "error",
        code: "EADDRINUSE",
        message: `port ${port} is in use (set --port)`,
      },
    ]);
    // The port is taken before anything is made: no key, no state directory.
    await expect(stat(other)).rejects.toThrow(/ENOENT/);
    expect((await stat(join(home, "logs", ".lock"))).isFile()).toBe(true);
    first.stop.abort();
    expect(await first.exited).toBe(EXIT.ok);
  });
});
