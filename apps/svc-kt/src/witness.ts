import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import {
  FileWitnessState,
  loadOrCreateSignerKey,
  readSignerKeyFile,
  Witness,
  WitnessError,
  witnessRoutes,
} from "@svc/kt-witness";
import { COSIGNATURE_V1_TYPE, formatVerifierKey, type Signer } from "@svc/signed-note";
import { WITNESS_NAME, type WitnessArgs } from "./args.js";
import { EXIT } from "./exit.js";
import type { CliIo } from "./run.js";
import { witnessOutput } from "./witness-output.js";

/** The witness key file and the state directory, under --dir. */
export const KEY_FILE = "witness-key";
export const STATE_DIR = "logs";

/** `svc-kt witness`: serves until `io.signal` aborts; resolves to the exit status. */
export async function runWitness(args: WitnessArgs, io: CliIo): Promise<number> {
  const output = witnessOutput(args.json);
  let state: FileWitnessState | undefined;
  try {
    const signer = await witnessKey(args);
    const verifierKey = formatVerifierKey(signer.name, signer.publicKey, COSIGNATURE_V1_TYPE);
    if (args.printKey) {
      io.stdout(verifierKey);
      return EXIT.ok;
    }
    state = await FileWitnessState.open(join(args.dir, STATE_DIR));
    const witness = new Witness({ signer, logs: args.logs, state });
    const app = witnessRoutes(witness, {
      onAnswer: (outcome) => io.stdout(output.outcome(outcome)),
      onError: (error) => io.stderr(output.problem("error", error)),
    });
    const server = await listen(app.fetch, args.host, args.port);
    const port = (server.address() as AddressInfo).port;
    const host = args.host.includes(":") ? `[${args.host}]` : args.host;
    io.stdout(output.listening(`http://${host}:${port}`, verifierKey));
    await aborted(io.signal);
    await close(server);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof WitnessError) && !isSystemError(error)) throw error;
    io.stderr(output.problem("error", error));
    return EXIT.cannotStart;
  } finally {
    await state?.close();
  }
}

/** The key in --dir: --name's (made if missing), else whatever key is there, else a new one. */
async function witnessKey(args: WitnessArgs): Promise<Signer> {
  const path = join(args.dir, KEY_FILE);
  if (args.name !== undefined) return loadOrCreateSignerKey(path, args.name);
  return (await readSignerKeyFile(path)) ?? loadOrCreateSignerKey(path, WITNESS_NAME);
}

function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  host: string,
  port: number,
): Promise<Server> {
  const server = createAdaptorServer({
    fetch,
    // Against slow and idle clients: the head in 10 s, the whole request in 30 s.
    serverOptions: { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 },
  }) as Server;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/** Stops accepting, lets the requests in flight finish (at most 5 s), then closes. */
async function close(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = setTimeout(() => server.closeAllConnections(), 5_000);
  await closed;
  clearTimeout(deadline);
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
