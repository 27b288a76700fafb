import { performance } from "node:perf_hooks";
import type { SideConfig, SideMessage } from "./side-messages.js";
import { trackUsage } from "./side-usage.js";

/** A receiver that listens: where, and where the last upload landed. */
export interface ListeningReceiver {
  url: string;
  address?: string;
  receivedPath(): string;
}

const config = (): SideConfig => JSON.parse(process.argv[2] ?? "{}") as SideConfig;
const tell = (message: SideMessage) => process.send?.(message);

process.on("message", (message) => {
  if (message === "stop") process.exit(0);
});
// A parent that died does not leave its sides listening.
process.on("disconnect", () => process.exit(0));

/**
 * The body of a receiver process: starts it, says where it listens, and answers the parent's
 * "report" with the received file and what the process spent since it was ready.
 */
export async function runReceiver(
  start: (config: SideConfig) => Promise<ListeningReceiver>,
): Promise<void> {
  await failLoudly(async () => {
    const receiver = await start(config());
    const usage = trackUsage();
    process.on("message", (message) => {
      if (message !== "report") return;
      void failLoudly(async () => {
        tell({ kind: "report", path: receiver.receivedPath(), usage: usage.read() });
      });
    });
    const { url, address } = receiver;
    tell({ kind: "ready", url, ...(address === undefined ? {} : { address }) });
  });
}

/**
 * The body of a sender process: `prepare` does what precedes a transfer (identities, sockets)
 * and answers the transfer itself, which is timed, with the process's CPU counted from its start.
 */
export async function runSender(
  prepare: (config: SideConfig) => Promise<() => Promise<void>>,
): Promise<void> {
  await failLoudly(async () => {
    const transfer = await prepare(config());
    const usage = trackUsage();
    const started = performance.now();
    await transfer();
    const seconds = (performance.now() - started) / 1000;
    tell({ kind: "done", seconds, usage: usage.read() });
  });
}

async function failLoudly(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    tell({
      kind: "failed",
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    process.exitCode = 1;
  }
}
