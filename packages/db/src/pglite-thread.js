// @ts-check
/**
 * The thread that owns the embedded PGlite database; pglite-channel.ts is the other end.
 *
 * PGlite runs PostgreSQL as WebAssembly on the thread that calls it, and V8 keeps much of the
 * garbage of that thread's neighbours alive long enough to need full collections: with the server
 * on the same heap, collections of 3-8 ms came every second or two under load. Here PGlite has a
 * heap of its own and is only handed raw PostgreSQL protocol bytes, so it allocates little and is
 * rarely collected.
 *
 * Requests arrive through shared memory, not messages: the server's thread writes protocol bytes,
 * wakes this one and awaits the answer (Atomics.waitAsync), serving other work meanwhile.
 * Plain JavaScript because worker threads load files as they are, from the sources in tests too.
 */
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { CHANNEL, OP, STATE, STATUS } from "./pglite-channel-layout.js";
import { startParams } from "./pglite-settings.js";

const port = parentPort;
if (!port) throw new Error("pglite-thread.js runs as a worker thread");

/** @type {import("./pglite-channel.js").ThreadStart} */
const start = workerData;
const control = new Int32Array(start.shared, 0, CHANNEL.controlInts);
const areaBytes = (start.shared.byteLength - CHANNEL.dataOffset) / 2;
const requestArea = new Uint8Array(start.shared, CHANNEL.dataOffset, areaBytes);
const answerArea = new Uint8Array(start.shared, CHANNEL.dataOffset + areaBytes, areaBytes);
const encoder = new TextEncoder();

let pglite;
try {
  pglite = await PGlite.create({
    ...(start.dataDir ? { dataDir: start.dataDir } : {}),
    ...(start.loadDataDir
      ? { loadDataDir: new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (start.loadDataDir)]) }
      : {}),
    pgliteWasmModule: start.pgliteWasmModule,
    initdbWasmModule: start.initdbWasmModule,
    startParams: startParams(),
  });
} catch (error) {
  port.postMessage({ ready: false, error: String(error) });
  process.exit(1);
}
const db = pglite;

port.on("message", async (/** @type {{ op: "dump" | "close" }} */ request) => {
  if (request.op === "dump") {
    const dump = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
    port.postMessage({ dump }, [dump.buffer]);
    serveUntilBroken();
  } else {
    await db.close();
    port.postMessage({ closed: true });
    process.exit(0);
  }
});
/**
 * The answer to the request being run. Backend output goes straight into the shared answer area
 * (PGlite's own collector copies each piece twice and parses every message: garbage this thread
 * would have to collect while the server waits); what does not fit waits in `overflow`.
 */
const answer = {
  written: 0,
  /** @type {Uint8Array[] | undefined} */
  overflow: undefined,
  /** @param {Uint8Array} piece a view into PGlite's memory, valid only during the call */
  collect(piece) {
    if (!answer.overflow && answer.written + piece.length <= answerArea.length) {
      answerArea.set(piece, answer.written);
      answer.written += piece.length;
    } else {
      answer.overflow ??= [];
      answer.overflow.push(piece.slice());
    }
    return piece.length;
  },
};

/** Answers requests until the server's thread asks this one to take a message instead. */
async function serve() {
  /** @type {Uint8Array[]} */
  let pieces = [];
  let rest = new Uint8Array(0);
  let sent = 0;
  for (;;) {
    while (Atomics.load(control, CHANNEL.state) !== STATE.worker) {
      Atomics.wait(control, CHANNEL.state, STATE.server);
    }
    const op = control[CHANNEL.op];
    const length = control[CHANNEL.length] ?? 0;
    if (op === OP.yield) {
      handOver(STATUS.ack, 0);
      return;
    }
    if (op === OP.input) {
      pieces.push(requestArea.slice(0, length));
      handOver(STATUS.ack, 0);
      continue;
    }
    if (op === OP.execute) {
      // A request in one piece is read where it lies: nothing writes the request area meanwhile.
      const last = requestArea.subarray(0, length);
      const request = pieces.length === 0 ? last : concat([...pieces, last]);
      pieces = [];
      answer.written = 0;
      answer.overflow = undefined;
      // Runs at once (this thread only waits for the promise); statement errors are part of the
      // answer, so only a broken database rejects, and that ends the thread (serveUntilBroken).
      await db.execProtocolRawStream(request, { syncToFs: false, onRawData: answer.collect });
      rest = answer.overflow ? concat(answer.overflow) : new Uint8Array(0);
      sent = 0;
      handOver(rest.length > 0 ? STATUS.more : STATUS.done, answer.written);
      continue;
    }
    // OP.next: the next piece of an answer longer than the answer area.
    const piece = Math.min(rest.length - sent, answerArea.length);
    answerArea.set(rest.subarray(sent, sent + piece));
    sent += piece;
    handOver(sent < rest.length ? STATUS.more : STATUS.done, piece);
  }
}

/**
 * @param {number} status
 * @param {number} length
 */
function handOver(status, length) {
  control[CHANNEL.status] = status;
  control[CHANNEL.length] = length;
  Atomics.store(control, CHANNEL.state, STATE.server);
  Atomics.notify(control, CHANNEL.state);
}

/** @param {Uint8Array[]} pieces */
function concat(pieces) {
  const whole = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    whole.set(piece, offset);
    offset += piece.length;
  }
  return whole;
}

/**
 * A failure is answered to the request waiting for it, with its reason, and ends the thread: the
 * server's thread then fails every later request (and hears of the exit if none was waiting).
 */
function serveUntilBroken() {
  serve().catch((/** @type {unknown} */ error) => {
    const message = encoder.encode(`the embedded database thread failed: ${String(error)}`);
    answerArea.set(message.subarray(0, answerArea.length));
    handOver(STATUS.failed, Math.min(message.length, answerArea.length));
    process.exit(1);
  });
}

port.postMessage({ ready: true });
serveUntilBroken();
