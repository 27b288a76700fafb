// @ts-check
/**
 * `turbo run build` for the README's commands (`pnpm start`, `pnpm test`): one line per package it
 * compiles and nothing for those its cache already holds, so the first run says what it spends
 * its minutes on and later ones stay quiet. Compiler errors and turbo's own errors pass through;
 * the exit status is turbo's. Arguments go to turbo (e.g. --filter=@svc/prekey-server).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const TASK_LINE = /^(\S+):build: ?(.*)$/;
const started = performance.now();
let built = 0;

const turbo = spawn("turbo", ["run", "build", "--output-logs=new-only", ...process.argv.slice(2)], {
  stdio: ["ignore", "pipe", "inherit"],
  shell: process.platform === "win32",
});
turbo.once("error", (error) => {
  console.error(
    `could not run turbo (run this through pnpm, as the README does): ${error.message}`,
  );
  process.exit(1);
});
/** @type {Promise<number | null>} */
const closed = new Promise((resolve) => turbo.once("close", (code) => resolve(code)));
for await (const line of createInterface({ input: turbo.stdout })) {
  const task = TASK_LINE.exec(line);
  if (!task) {
    // turbo's banner and summary say nothing a user needs; its errors do.
    if (/error|failed|exited/i.test(line)) console.error(line);
    continue;
  }
  const [, name, text = ""] = task;
  if (text.startsWith("cache miss")) {
    if (built++ === 0) {
      console.error(
        "building the workspace's packages (the first run compiles them all: a few minutes)",
      );
    }
    console.error(`  building ${name}`);
  } else if (!text.startsWith("cache hit") && !text.startsWith(">") && text.trim() !== "") {
    console.error(`  ${name}: ${text}`);
  }
}
const code = await closed;
if (built > 0 && code === 0) {
  console.error(
    `built ${built} package${built === 1 ? "" : "s"} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}
process.exit(code ?? 1);
