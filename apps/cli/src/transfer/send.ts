import { join, resolve } from "node:path";
import { SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import {
  type ResumeInfo,
  SendJournal,
  sendFile,
  TransferError,
  type TransferResult,
} from "@svc/transfer-peer";
import { EXIT } from "../exit.js";
import type { Problem } from "../output.js";
import type { TransferArgs } from "./args.js";
import { terminalProgressBar } from "./progress-bar.js";

export interface SendIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** stderr when it is a terminal (and --json is off): where the progress bar is drawn. */
  terminal?: { write(chunk: string): unknown } | undefined;
  /** Stops the send (exit 130, INTERRUPTED); the next run resumes it. */
  signal?: AbortSignal;
}

type SendArgs = Extract<TransferArgs, { command: "send" }>;

/** Where a home keeps the streams its sends may resume (stream keys inside: 0600 files). */
export const journalDirOf = (home: string): string => join(home, "transfers");

/**
 * `svc transfer send`: resumes the stream this home started for the same unchanged file and
 * receiver when there is one, else starts a new stream; prints the result once the receiver
 * has the whole file. Stopped by `io.signal`, it says so in one line and exits 130, the stream
 * kept to be resumed.
 */
export async function sendCommand(
  args: SendArgs,
  io: SendIo,
  fail: (problem: Problem) => void,
  tool: string,
): Promise<number> {
  const file = resolve(args.file);
  const route = { to: args.to, peer: args.peer };
  const journal = new SendJournal(journalDirOf(args.home));
  // The progress bar's line is erased before a note is written under it.
  let clearLine = () => {};
  const outage = outageNotes(args.peer, (line) => {
    clearLine();
    note(line);
  });
  let client: SvcClient | undefined;
  try {
    client = await SvcClient.open({
      server: args.server,
      store: fileStore(args.home),
      kt: args.kt,
      ...nodeClientOptions(),
    });
    await client.whoami();
    const resume = await journal.lookup(file, route);
    try {
      return report(await run(client, resume));
    } catch (error) {
      const gone =
        resume !== undefined &&
        error instanceof TransferError &&
        (error.code === "STREAM_NOT_FOUND" || error.code === "STREAM_CLOSED");
      if (!gone || io.signal?.aborted) throw error;
      note(
        `the receiver no longer has stream ${resume.streamId} (${error.message}); starting over`,
      );
      await journal.remove(file, route);
      return report(await run(client, undefined));
    }
  } catch (error) {
    if (io.signal?.aborted) {
      fail({
        code: "INTERRUPTED",
        message: "the transfer was interrupted: run the same command again to resume it",
      });
      return EXIT.interrupted;
    }
    if (error instanceof TransferError) {
      fail({ code: error.code, message: error.message });
      return EXIT.failure;
    }
    throw error;
  } finally {
    await client?.close();
  }

  async function run(client: SvcClient, resume: ResumeInfo | undefined): Promise<TransferResult> {
    const transfer = sendFile(file, {
      client,
      to: args.to,
      peer: args.peer,
      // A resumed stream keeps the lanes and chunk size the receiver planned it by.
      ...(resume ? { resume } : { lanes: args.lanes, chunkBytes: args.chunkBytes }),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    const bar = !args.json && io.terminal ? terminalProgressBar(io.terminal) : undefined;
    clearLine = () => bar?.done();
    // Awaited before the command ends, interrupted or not: it is what the next run resumes.
    let saved: Promise<void> = Promise.resolve();
    transfer.on("started", (stream) => {
      saved = journal.save(file, route, stream).catch((error: unknown) => {
        note(`cannot save the stream to resume it later: ${(error as Error).message}`);
      });
    });
    transfer.on("progress", (progress) => bar?.update(progress));
    transfer.on("retry", (notice) => outage.down(notice.reason));
    transfer.on("recovered", () => outage.up());
    try {
      const result = await transfer.done;
      await saved;
      await journal.remove(file, route);
      return result;
    } finally {
      bar?.done();
      await saved;
    }
  }

  function report(result: TransferResult): number {
    io.stdout(
      args.json
        ? JSON.stringify({
            streamId: result.streamId,
            bytes: result.bytes,
            sha256: result.sha256,
            seconds: result.seconds,
            resumedBytes: result.resumedBytes,
          })
        : `sent ${file} to ${args.to}: ${result.bytes} bytes in ${result.seconds.toFixed(1)} s, sha256 ${result.sha256}${result.resumedBytes > 0 ? ` (resumed after ${result.resumedBytes} bytes)` : ""}`,
    );
    return EXIT.ok;
  }

  function note(line: string): void {
    if (!args.json) io.stderr(`${tool}: ${line}`);
  }
}

/**
 * One line when the receiver stops answering and one when it answers again, however many
 * requests are retried in between (each lane retries its own).
 */
function outageNotes(peer: string, note: (line: string) => void) {
  let down = false;
  return {
    down(reason: string): void {
      if (down) return;
      down = true;
      note(`the receiver at ${peer} does not answer (${reason}); retrying`);
    },
    up(): void {
      if (!down) return;
      down = false;
      note(`the receiver at ${peer} answers again; going on`);
    },
  };
}
