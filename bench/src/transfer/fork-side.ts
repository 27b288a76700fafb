import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
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
  const child: ChildProcess = fork(entry, [JSON.stringify(config)], { stdio: "inherit" });
  const queue: SideMessage[] = [];
  const waiting: Array<() => void> = [];
  let exited: string | undefined;
  child.on("message", (message) => {
    queue.push(message as SideMessage);
    for (const wake of waiting.splice(0)) wake();
  });
  child.on("exit", (code, signal) => {
    exited = `${name} exited (${signal ?? code})`;
    for (const wake of waiting.splice(0)) wake();
  });
  return {
    async next(kind) {
      for (;;) {
        const failed = queue.find((message) => message.kind === "failed");
        if (failed?.kind === "failed") throw new Error(`${name} failed: ${failed.error}`);
        const index = queue.findIndex((message) => message.kind === kind);
        if (index !== -1) {
          return queue.splice(index, 1)[0] as Extract<SideMessage, { kind: typeof kind }>;
        }
        if (exited !== undefined) throw new Error(`${exited} before "${kind}"`);
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    send(message) {
      if (child.connected) child.send(message);
    },
    async stop() {
      if (exited !== undefined) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      if (child.connected) child.send("stop");
      const timer = setTimeout(() => child.kill(), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}
