import { join } from "node:path";
import { type BoundPort, bindPort } from "@svc/http";
import {
  FileWitnessState,
  loadOrCreateSignerKey,
  readSignerKeyFile,
  Witness,
  WitnessError,
  witnessRoutes,
} from "@svc/kt-witness";
import { COSIGNATURE_V1_TYPE, formatVerifierKey, type Signer } from "@svc/signed-note";
import { EXIT } from "../exit.js";
import { WITNESS_NAME, type WitnessArgs } from "./args.js";
import type { KtIo } from "./run.js";
import { witnessOutput } from "./witness-output.js";

/** The witness key file and the state directory, under --dir. */
export const KEY_FILE = "witness-key";
export const STATE_DIR = "logs";

/**
 * `svc kt witness`: serves until `io.signal` aborts; resolves to the exit status. The port is
 * taken first, so that one in use ends the start before the key or the state directory is made.
 */
export async function runWitness(args: WitnessArgs, io: KtIo, tool: string): Promise<number> {
  const output = witnessOutput(args.json, tool);
  let port: BoundPort | undefined;
  let state: FileWitnessState | undefined;
  try {
    if (!args.printKey) port = await bind(args);
    const signer = await witnessKey(args);
    const verifierKey = formatVerifierKey(signer.name, signer.publicKey, COSIGNATURE_V1_TYPE);
    if (port === undefined) {
      io.stdout(verifierKey);
      return EXIT.ok;
    }
    state = await FileWitnessState.open(join(args.dir, STATE_DIR));
    const witness = new Witness({ signer, logs: args.logs, state });
    const app = witnessRoutes(witness, {
      onAnswer: (outcome) => io.stdout(output.outcome(outcome)),
      onError: (error) => io.stderr(output.problem("error", error)),
    });
    const server = port.serve(app.fetch);
    io.stdout(output.listening(server.url, verifierKey));
    await aborted(io.signal);
    await server.stop();
    return EXIT.ok;
  } catch (error) {
    await port?.close();
    if (!(error instanceof WitnessError) && !isSystemError(error)) throw error;
    io.stderr(output.problem("error", error));
    return EXIT.failure;
  } finally {
    await state?.close();
  }
}

/** Against slow and idle clients: the head in 10 s, the whole request in 30 s. */
function bind(args: WitnessArgs): Promise<BoundPort> {
  return bindPort(args.host, args.port, {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
    settings: { port: "--port", host: "--host" },
  });
}

/** The key in --dir: --name's (made if missing), else whatever key is there, else a new one. */
async function witnessKey(args: WitnessArgs): Promise<Signer> {
  const path = join(args.dir, KEY_FILE);
  if (args.name !== undefined) return loadOrCreateSignerKey(path, args.name);
  return (await readSignerKeyFile(path)) ?? loadOrCreateSignerKey(path, WITNESS_NAME);
}

function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** A port in use, a directory that cannot be made: exit 1 with the system's message. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code);
}
