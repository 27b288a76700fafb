import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
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

/** Compiling PGlite takes a core for most of a second; every thread of a process shares it. */
function compiledPglite(): Promise<WebAssembly.Module[]> {
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
  const [pgliteWasmModule, initdbWasmModule] = (await compiledPglite()) as [
    WebAssembly.Module,
    WebAssembly.Module,
  ];
  const start: ThreadStart = {
    shared,
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    pgliteWasmModule,
    initdbWasmModule,
  };
  const worker = new Worker(threadUrl, { workerData: start });
  const started = await new Promise<{ ready: boolean; error?: string }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  if (!started.ready) throw new Error(`the embedded database did not start: ${started.error}`);
  worker.unref();
  return new PgliteThread(worker, shared);
}

/**
 * The server's end of the embedded database: `execute` hands it PostgreSQL protocol bytes and
 * waits for the answer, blocking this thread as in-process PGlite did (a statement takes about a
 * tenth of a millisecond).
 */
export class PgliteThread {
  readonly #worker: Worker;
  readonly #control: Int32Array;
  readonly #requestArea: Uint8Array;
  readonly #answerArea: Uint8Array;
  #stopped = false;

  constructor(worker: Worker, shared: SharedArrayBuffer) {
    this.#worker = worker;
    this.#control = new Int32Array(shared, 0, CHANNEL.controlInts);
    const areaBytes = (shared.byteLength - CHANNEL.dataOffset) / 2;
    this.#requestArea = new Uint8Array(shared, CHANNEL.dataOffset, areaBytes);
    this.#answerArea = new Uint8Array(shared, CHANNEL.dataOffset + areaBytes, areaBytes);
    worker.on("exit", () => {
      this.#stopped = true;
    });
  }

  /** Runs protocol messages (frontend bytes) and answers what the backend wrote in reply. */
  execute(request: Uint8Array): Uint8Array {
    if (this.#stopped) throw new Error("the embedded database is closed");
    const capacity = this.#requestArea.length;
    let offset = 0;
    for (; request.length - offset > capacity; offset += capacity) {
      this.#requestArea.set(request.subarray(offset, offset + capacity));
      this.#call(OP.input, capacity);
    }
    this.#requestArea.set(request.subarray(offset));
    let status = this.#call(OP.execute, request.length - offset);
    const pieces = [this.#received()];
    while (status === STATUS.more) {
      status = this.#call(OP.next, 0);
      pieces.push(this.#received());
    }
    return pieces.length === 1 ? (pieces[0] as Uint8Array) : Buffer.concat(pieces);
  }

  /** The whole database as a tarball (PGlite's dumpDataDir), to start other threads from. */
  async dump(): Promise<Uint8Array> {
    const answer = await this.#message<{ dump: Uint8Array }>({ op: "dump" });
    return answer.dump;
  }

  async close(): Promise<void> {
    if (this.#stopped) return;
    await this.#message({ op: "close" });
    this.#stopped = true;
  }

  /** Hands the turn to the database thread, waits until it hands it back, and throws its failure. */
  #call(op: number, length: number): number {
    const control = this.#control;
    control[CHANNEL.op] = op;
    control[CHANNEL.length] = length;
    Atomics.store(control, CHANNEL.state, STATE.worker);
    Atomics.notify(control, CHANNEL.state);
    while (Atomics.load(control, CHANNEL.state) !== STATE.server) {
      Atomics.wait(control, CHANNEL.state, STATE.worker);
    }
    const status = control[CHANNEL.status] ?? STATUS.failed;
    if (status === STATUS.failed) {
      throw new Error(`embedded database: ${decoder.decode(this.#received())}`);
    }
    return status;
  }

  #received(): Uint8Array {
    return Buffer.from(this.#answerArea.subarray(0, this.#control[CHANNEL.length]));
  }

  /** Asks the thread to leave its shared-memory loop and answer one message. */
  async #message<T>(request: { op: "dump" | "close" }): Promise<T> {
    if (this.#stopped) throw new Error("the embedded database is closed");
    this.#call(OP.yield, 0);
    this.#worker.ref();
    try {
      return await new Promise<T>((resolve, reject) => {
        this.#worker.once("message", resolve);
        this.#worker.once("error", reject);
        this.#worker.postMessage(request);
      });
    } finally {
      this.#worker.unref();
    }
  }
}
