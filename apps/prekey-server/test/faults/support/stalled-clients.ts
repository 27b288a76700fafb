import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import type { Closer } from "./server-process.js";

/**
 * A client that sends its request and then never reads: its socket is paused, so the kernel's
 * buffers fill and then the server's. `request` is the raw HTTP/1.1 request head.
 */
export async function pausedClient(closers: Closer[], url: string, path: string, upgrade = false) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  socket.on("error", () => {});
  closers.push(async () => {
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const head = upgrade
    ? [
        `GET ${path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
      ]
    : [`GET ${path} HTTP/1.1`, `Host: ${hostname}:${port}`];
  // Read the status line, then stop reading for good.
  const status = new Promise<string>((resolve) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      resolve(chunk.toString("latin1").split("\r\n")[0] ?? "");
    });
  });
  socket.write(`${head.join("\r\n")}\r\n\r\n`);
  return { socket, status: await status };
}

/**
 * A client process that opens an SSE and a WebSocket bridge (URLs given) and is then frozen with
 * SIGSTOP: to the server it vanished without closing anything (a laptop lid shut).
 */
export async function frozenClient(
  closers: Closer[],
  sseUrl: string,
  wsUrl: string,
): Promise<ChildProcess> {
  const script = `
    const http = require("node:http");
    const { request } = http;
    let open = 0;
    const opened = () => { if (++open === 2) process.stdout.write("open\\n"); };
    request(${JSON.stringify(sseUrl)}, { agent: false }, () => opened()).end();
    const ws = new URL(${JSON.stringify(wsUrl)});
    const req = request({ host: ws.hostname, port: ws.port, path: ws.pathname + ws.search, agent: false,
      headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": require("node:crypto").randomBytes(16).toString("base64") } });
    req.on("upgrade", opened);
    req.end();
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  closers.push(async () => {
    child.kill("SIGKILL");
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`frozen client exited with ${code}`)));
  });
  child.kill("SIGSTOP");
  return child;
}
