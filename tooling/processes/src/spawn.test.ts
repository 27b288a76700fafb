import { afterEach, describe, expect, it } from "vitest";
import { type Closer, spawnProcess } from "./spawn.js";

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** `node -e <code>`, as the spawner starts any process. */
function node(code: string, options: Parameters<typeof spawnProcess>[2] = {}) {
  return spawnProcess(process.execPath, ["-e", code], { closers, ...options });
}

describe("spawnProcess", () => {
  it("collects stdout and stderr, gives the url of the listening line, stops with a signal", async () => {
    const server = node(`
      process.on("SIGTERM", () => { console.log("bye"); process.exit(3); });
      setInterval(() => {}, 1000);
      console.log("starting");
      console.error("warned");
      console.log(JSON.stringify({ message: "listening", url: "http://127.0.0.1:1" }));
    `);
    expect(await server.listening()).toBe("http://127.0.0.1:1");
    await server.waitFor(() => (server.out.stderr === "warned\n" ? true : undefined), "stderr");
    expect(server.jsonLines()).toEqual([{ message: "listening", url: "http://127.0.0.1:1" }]);
    expect(server.alive()).toBe(true);
    expect(await server.stop()).toEqual({ code: 3, signal: null });
    expect(server.alive()).toBe(false);
    expect(server.out.stdout).toMatch(/bye\n$/);
    expect(await server.exited).toBe(3);
  });

  it("passes only the given environment (and PATH)", async () => {
    const child = node("console.log(JSON.stringify(process.env))", { env: { ONLY: "this" } });
    expect(await child.exited).toBe(0);
    expect(JSON.parse(child.out.stdout)).toEqual({ PATH: process.env.PATH, ONLY: "this" });
  });

  it("rejects a wait, quoting the output, when the process ends first", async () => {
    const child = node('console.error("no such file"); process.exit(2)');
    await expect(child.listening()).rejects.toThrow(
      /^the process ended \(2\) waiting for a line with its url:\nno such file\n$/,
    );
    expect(await child.ended).toEqual({ code: 2, signal: null });
  });

  it("rejects a wait after its timeout", async () => {
    const child = node("setInterval(() => {}, 1000)");
    await expect(child.waitFor(() => undefined, "nothing", 100)).rejects.toThrow(
      "timed out after 100 ms waiting for nothing",
    );
    expect(await child.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
  });

  it("exchanges IPC messages in order", async () => {
    const child = node(
      `process.send({ n: 1 }); process.send({ n: 2 });
       process.on("message", (m) => { process.send({ echo: m }); process.disconnect(); });`,
      { ipc: true },
    );
    expect(await child.nextMessage()).toEqual({ n: 1 });
    expect(await child.nextMessage()).toEqual({ n: 2 });
    child.send("ping");
    expect(await child.nextMessage()).toEqual({ echo: "ping" });
    expect(await child.exited).toBe(0);
    await expect(child.nextMessage()).rejects.toThrow(
      /^the process ended \(0\) waiting for a message/,
    );
  });

  it("kills a process still running when its closer runs", async () => {
    const own: Closer[] = [];
    const child = node("setInterval(() => {}, 1000)", { closers: own });
    for (const close of own) await close();
    expect(await child.ended).toEqual({ code: null, signal: "SIGKILL" });
  });
});
