/// <reference lib="es2024.sharedmemory" />
/// <reference path="./webassembly.d.ts" />
import { execFile } from "node:child_process";
import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Worker } from "node:worker_threads";
import { CHANNEL, OP, STATE, STATUS } from "./pglite-channel-layout.js";

export interface ThreadStart {
  shared: SharedArrayBuffer;
  /** Directory of a database on disk; absent: in memory. */
  dataDir?: string | undefined;
  /** A dump (PgliteThread.dump) to start from. */
  loadDataDir?: Uint8Array | undefined;
  /** PGlite's WebAssembly, compiled once per process: threads share compiled modules. */
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
}

export interface PgliteThreadOptions {
  dataDir?: string | undefined;
  loadDataDir?: Uint8Array | undefined;
  /** Size of each shared data area; longer requests and answers travel in pieces. */
  channelBytes?: number;
}

const threadUrl = new URL("./pglite-thread.js", import.meta.url);
const decoder = new TextDecoder();

let compiled: Promise<WebAssembly.Module[]> | undefined;

/**
 * Compiling PGlite takes a core for most of a second; every thread of a process shares it.
 *
 * PGlite runs on Liftoff, V8's baseline WebAssembly compiler, only: tiering PostgreSQL's large
 * functions up to TurboFan took some 50 MiB of compiler memory that the C allocator kept for
 * good once freed, a third of an idle server's resident memory, for statements that then cost
 * about a fifth less CPU. V8 flags are per process; this one changes only how WebAssembly
 * compiled from now on runs, and PGlite is the process's WebAssembly.
 */
function compiledPglite(): Promise<WebAssembly.Module[]> {
  if (!compiled) setFlagsFromString("--liftoff-only");
  compiled ??= Promise.all(
    ["pglite.wasm", "initdb.wasm"].map(async (name) => {
      const url = import.meta.resolve(`@electric-sql/pglite/${name}`);
      return WebAssembly.compile(await readFile(fileURLToPath(url)));
    }),
  );
  return compiled;
}

/** Starts an embedded PGlite database on a thread of its own (see pglite-thread.js). */
export async function startPgliteThread(options: PgliteThreadOptions = {}): Promise<PgliteThread> {
  const channelBytes = options.channelBytes ?? 4 * 1024 * 1024;
  if (!Number.isSafeInteger(channelBytes) || channelBytes < 64) {
    throw new RangeError("channelBytes must be an integer of at least 64");
  }
  const shared = new SharedArrayBuffer(CHANNEL.dataOffset + 2 * channelBytes);
  const { dataDir } = options;
  const [[pgliteWasmModule, initdbWasmModule]] = (await Promise.all([
    compiledPglite(),
    dataDir !== undefined && createDatabase(dataDir),
  ])) as [[WebAssembly.Module, WebAssembly.Module], unknown];
  const start: ThreadStart = {
    shared,
    dataDir,
    loadDataDir: options.loadDataDir,
    pgliteWasmModule,
    initdbWasmModule,
  };
  const worker = new Worker(threadUrl, { workerData: start, resourceLimits: THREAD_LIMITS });
  const started = await new Promise<{ ready: boolean; error?: string }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  if (!started.ready) throw new Error(`the embedded database did not start: ${started.error}`);
  worker.unref();
  return new PgliteThread(worker, shared);
}

/**
 * The thread's own JavaScript allocates little (it is handed protocol bytes): a young generation
 * of a few MiB rather than V8's default 16 is collected as cheaply and keeps 10 MiB off the RSS.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 2 };

const createUrl = new URL("./pglite-create.js", import.meta.url);

/**
 * A directory without a database gets one from initdb, run in a process of its own whose memory
 * ends with it (see pglite-create.js).
 */
async function createDatabase(dataDir: string): Promise<void> {
  if (await exists(join(dataDir, "PG_VERSION"))) return;
  await new Promise<void>((resolve, reject) => {
    // Liftoff alone: initdb is over before TurboFan's work would pay for itself.
    const args = ["--liftoff-only", fileURLToPath(createUrl), dataDir];
    execFile(process.execPath, args, (error, _stdout, stderr) => {
      if (!error) resolve();
      else reject(new Error(`the embedded database could not be created: ${stderr.trim()}`));
    });
  });
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * The server's end of the embedded database: `execute` hands it PostgreSQL protocol bytes and
 * awaits the answer (Atomics.waitAsync), so the server's thread goes on with timers and other
 * requests while a statement runs. One exchange crosses the channel at a time; others queue.
 *
 * If the thread ends without being closed, the waiting exchange and every later one fail with
 * its reason, and `failed` settles with it.
 */
export class PgliteThread {
  /** Settles, with the reason, if the thread ends without being closed. */
  readonly failed: Promise<Error>;
  readonly #worker: Worker;
  readonly #control: Int32Array;
  readonly #requestArea: Uint8Array;
  readonly #answerArea: Uint8Array;
  #fail: (reason: Error) => void = () => {};
  #closed: Promise<void> | undefined;
  /** Why no exchange can run any more: the thread was closed, or failed. */
  #ended: Error | undefined;
  /** Rejects the message exchange (dump, close) waiting for the thread's answer. */
  #interruptMessage: ((reason: Error) => void) | undefined;
  /** Exchanges started and not finished, counting queued ones: the thread is ref'd meanwhile. */
  #pending = 0;
  #busy = false;
  readonly #queued: Array<() => void> = [];

  constructor(worker: Worker, shared: SharedArrayBuffer) {
    this.#worker = worker;
    this.#control = new Int32Array(shared, 0, CHANNEL.controlInts);
    const areaBytes = (shared.byteLength - CHANNEL.dataOffset) / 2;
    this.#requestArea = new Uint8Array(shared, CHANNEL.dataOffset, areaBytes);
    this.#answerArea = new Uint8Array(shared, CHANNEL.dataOffset + areaBytes, areaBytes);
    this.failed = new Promise((resolve) => {
      this.#fail = resolve;
    });
    worker.on("error", (error) => this.#end(error));
    worker.on("exit", (code) => {
      this.#end(new Error(`the embedded database thread exited with code ${code}`));
    });
  }

  /** Runs protocol messages (frontend bytes) and answers what the backend wrote in reply. */
  execute(request: Uint8Array): Promise<Uint8Array> {
    return this.#exclusively(async () => {
      const capacity = this.#requestArea.length;
      let offset = 0;
      for (; request.length - offset > capacity; offset += capacity) {
        this.#requestArea.set(request.subarray(offset, offset + capacity));
        await this.#call(OP.input, capacity);
      }
      this.#requestArea.set(request.subarray(offset));
      let status = await this.#call(OP.execute, request.length - offset);
      const pieces = [this.#received()];
      while (status === STATUS.more) {
        status = await this.#call(OP.next, 0);
        pieces.push(this.#received());
      }
      return pieces.length === 1 ? (pieces[0] as Uint8Array) : Buffer.concat(pieces);
    });
  }

  /** The whole database as a tarball (PGlite's dumpDataDir), to start other threads from. */
  async dump(): Promise<Uint8Array> {
    const answer = await this.#message<{ dump: Uint8Array }>({ op: "dump" });
    return answer.dump;
  }

  close(): Promise<void> {
    this.#closed ??= this.#ended
      ? Promise.resolve()
      : this.#message({ op: "close" }).then(() => this.#end(closedError()));
    return this.#closed;
  }

  /**
   * Runs one exchange once the channel is free. The thread is unref'd while idle, so that it
   * does not keep the process alive; an exchange refs it, as a pending socket would.
   */
  async #exclusively<T>(exchange: () => Promise<T>): Promise<T> {
    if (this.#pending++ === 0) this.#worker.ref();
    try {
      if (this.#busy) await new Promise<void>((resolve) => this.#queued.push(resolve));
      this.#busy = true;
      if (this.#ended) throw this.#ended;
      return await exchange();
    } finally {
      const next = this.#queued.shift();
      if (next) next();
      else this.#busy = false;
      if (--this.#pending === 0) this.#worker.unref();
    }
  }

  /** Hands the turn to the database thread, awaits it back, and throws the thread's failure. */
  async #call(op: number, length: number): Promise<number> {
    const control = this.#control;
    control[CHANNEL.op] = op;
    control[CHANNEL.length] = length;
    Atomics.store(control, CHANNEL.state, STATE.worker);
    Atomics.notify(control, CHANNEL.state);
    while (Atomics.load(control, CHANNEL.state) !== STATE.server) {
      if (this.#ended) throw this.#ended;
      const wait = Atomics.waitAsync(control, CHANNEL.state, STATE.worker);
      if (wait.async) await wait.value;
    }
    const status = control[CHANNEL.status] ?? STATUS.failed;
    if (status === STATUS.failed) {
      // The thread answers its failure to the waiting exchange, then ends.
      this.#end(new Error(decoder.decode(this.#received())));
      throw this.#ended;
    }
    return status;
  }

  #received(): Uint8Array {
    return Buffer.from(this.#answerArea.subarray(0, this.#control[CHANNEL.length]));
  }

  /** Asks the thread to leave its shared-memory loop and answer one message. */
  #message<T>(request: { op: "dump" | "close" }): Promise<T> {
    return this.#exclusively(async () => {
      await this.#call(OP.yield, 0);
      try {
        return await new Promise<T>((resolve, reject) => {
          this.#interruptMessage = reject;
          this.#worker.once("message", resolve);
          this.#worker.postMessage(request);
        });
      } finally {
        this.#interruptMessage = undefined;
      }
    });
  }

  /** The first reason wins; it fails the exchange waiting for the thread, and all later ones. */
  #end(reason: Error): void {
    if (this.#ended) return;
    this.#ended = this.#closed ? closedError() : reason;
    if (!this.#closed) this.#fail(reason);
    Atomics.notify(this.#control, CHANNEL.state);
    this.#interruptMessage?.(this.#ended);
  }
}

const closedError = () => new Error("the embedded database is closed");
