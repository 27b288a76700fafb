import { fileURLToPath } from "node:url";
import { type Exit, spawnNode } from "@svc/processes";
import type { SideConfig, SideMessage } from "./side-messages.js";

/** A receiver or sender in a process of its own, so that its CPU and memory are its own. */
export interface Side {
  /** The next message of that kind; rejects if the side fails or exits first. */
  next<K extends SideMessage["kind"]>(kind: K): Promise<Extract<SideMessage, { kind: K }>>;
  send(message: "report"): void;
  /** Asks the side to exit (so that it ends as a process does), then kills it after 5 s. */
  stop(): Promise<void>;
}

/** Forks `<name>.js` (or `.ts` when run from source) beside this file, configured by `config`. */
export function forkSide(name: string, config: SideConfig): Side {
  const extension = import.meta.url.endsWith(".ts") ? "ts" : "js";
  const entry = fileURLToPath(new URL(`./${name}.${extension}`, import.meta.url));
  const child = spawnNode(entry, [JSON.stringify(config)], {
    flags: process.execArgv,
    inheritEnv: true,
    output: "inherit",
    ipc: true,
  });
  return {
    async next(kind) {
      const message = (await child
        .nextMessage((m) => [kind, "failed"].includes((m as SideMessage).kind))
        .catch(async () => {
          throw new Error(`${name} exited (${describe(await child.ended)}) before "${kind}"`);
        })) as SideMessage;
      if (message.kind === "failed") throw new Error(`${name} failed: ${message.error}`);
      return message as Extract<SideMessage, { kind: typeof kind }>;
    },
    send(message) {
      child.send(message);
    },
    async stop() {
      if (!child.alive()) return;
      child.send("stop");
      const timer = setTimeout(() => child.child.kill(), 5000);
      await child.ended;
      clearTimeout(timer);
    },
  };
}

function describe(exit: Exit): string {
  return String(exit.signal ?? exit.code);
}
