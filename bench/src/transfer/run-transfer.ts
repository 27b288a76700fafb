import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forkSide, type Side } from "./fork-side.js";
import type { SideConfig } from "./side-messages.js";
import type { SideUsage } from "./side-usage.js";
import { fileSha256, type TestFile } from "./test-file.js";

/** One transfer of the test file, measured. */
export interface TransferRun {
  /** From the sender's first request to the receiver's acknowledgement of the last byte. */
  seconds: number;
  sender: SideUsage;
  receiver: SideUsage;
}

/** The two processes of one way to move a file: entry names beside this file. */
export interface TransferPath {
  receiver: string;
  sender: string;
}

/**
 * Moves the test file from a sender process to a receiver process, then checks that the received
 * file has the test file's SHA-256: a benchmark that moved the wrong bytes would measure nothing.
 */
export async function runTransfer(
  path: TransferPath,
  file: TestFile,
  options: { chunkBytes: number; lanes: number; server?: string },
): Promise<TransferRun> {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-received-"));
  const config: SideConfig = {
    dir,
    file: file.path,
    bytes: file.bytes,
    sha256: file.sha256,
    ...options,
  };
  const sides: Side[] = [];
  try {
    const receiver = forkSide(path.receiver, config);
    sides.push(receiver);
    const { url, address } = await receiver.next("ready");
    const sender = forkSide(path.sender, { ...config, url, ...(address ? { address } : {}) });
    sides.push(sender);
    const done = await sender.next("done");
    receiver.send("report");
    const report = await receiver.next("report");
    const received = await stat(report.path);
    const sha256 = await fileSha256(report.path);
    if (received.size !== file.bytes || sha256 !== file.sha256) {
      throw new Error(
        `${path.receiver} received ${received.size} bytes with SHA-256 ${sha256}, not the ${file.bytes} bytes sent (${file.sha256})`,
      );
    }
    return { seconds: done.seconds, sender: done.usage, receiver: report.usage };
  } finally {
    await Promise.all(sides.map((side) => side.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
