import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** Debian's nginx, run as a plain foreground process; never the system service. */
export const NGINX = "/usr/sbin/nginx";
export const SITE_FILE = fileURLToPath(
  new URL("../../../deploy/nginx/svc-prekey-server.conf", import.meta.url),
);

/**
 * Why the nginx tests should skip here, or undefined when they run. A missing nginx or openssl
 * skips them locally; in CI (CI set, other than "0" or "false") or with SVC_REQUIRE_NGINX=1 they
 * run and fail.
 */
export function nginxSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ci = env.CI;
  const required =
    (ci !== undefined && ci !== "" && ci !== "0" && ci !== "false") ||
    env.SVC_REQUIRE_NGINX === "1";
  if (required) return undefined;
  if (!existsSync(NGINX)) return `${NGINX} is not installed (apt-get install nginx)`;
  if (!onPath("openssl")) return "openssl is not installed (apt-get install openssl)";
  return undefined;
}

export interface NginxProxy {
  /** https://127.0.0.1:<port>, the site's TLS server. */
  readonly httpsUrl: string;
  /** http://127.0.0.1:<port>, the site's plain-HTTP server. */
  readonly httpUrl: string;
  /** The throwaway certificate, for clients to trust. */
  readonly ca: string;
  /** A fetch through the proxy from `localAddress` (any 127.x.y.z): one connection per call. */
  fetch(url: string, init?: RequestInit, localAddress?: string): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The repository's site file with test ports, a self-signed certificate and `upstreamPort`, in
 * an nginx master process with its own prefix, pid file and error log under a temp directory.
 */
export async function startNginxProxy(upstreamPort: number): Promise<NginxProxy> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is not installed (apt-get install nginx)`);
  const dir = await mkdtemp(join(tmpdir(), "svc-nginx-"));
  // Workers run as another user when the test runs as root; they write request bodies here.
  await chmod(dir, 0o755);
  const [httpsPort, httpPort] = [await freePort(), await freePort()];
  await promisify(execFile)("openssl", [
    ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
    ...["-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
    ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
  ]);
  const site = renderSite(await readFile(SITE_FILE, "utf8"), {
    httpsPort,
    httpPort,
    upstreamPort,
    certificate: join(dir, "cert.pem"),
    key: join(dir, "key.pem"),
  });
  await writeFile(join(dir, "site.conf"), site);
  await writeFile(join(dir, "nginx.conf"), mainConfig(dir));

  const nginx = spawn(
    NGINX,
    ["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const exited = new Promise<string>((resolve) => {
    nginx.once("exit", (code, signal) => resolve(`exited with ${code ?? signal}`));
    nginx.once("error", (error) => resolve(`did not start: ${error.message}`));
  });
  let stderr = "";
  nginx.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  const failed = exited.then(async (how) => {
    const log = await readFile(join(dir, "error.log"), "utf8").catch(() => "");
    return new Error(`nginx ${how}: ${stderr}${log}`);
  });
  const problem = await Promise.race([
    waitForPort(httpsPort).catch((error: Error) => error),
    failed,
  ]);
  if (problem) {
    await stopProcess(nginx, exited);
    await rm(dir, { recursive: true, force: true });
    throw problem;
  }

  const ca = await readFile(join(dir, "cert.pem"), "utf8");
  return {
    httpsUrl: `https://127.0.0.1:${httpsPort}`,
    httpUrl: `http://127.0.0.1:${httpPort}`,
    ca,
    fetch: (url, init, localAddress) => fetchVia(url, init, { ca, localAddress }),
    async stop() {
      await stopProcess(nginx, exited);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

interface SitePlaces {
  httpsPort: number;
  httpPort: number;
  upstreamPort: number;
  certificate: string;
  key: string;
}

/**
 * The site file as deployed, with only its addresses and certificate paths replaced (IPv6
 * listeners dropped). Each replaced line must be there, so that a changed site file fails here
 * instead of being tested in some other shape.
 */
export function renderSite(text: string, places: SitePlaces): string {
  const replacements: Array<[RegExp, string]> = [
    [/^\s*listen \[::\]:443 ssl http2;\n/m, ""],
    [/^\s*listen \[::\]:80;\n/m, ""],
    [/listen 443 ssl http2;/, `listen 127.0.0.1:${places.httpsPort} ssl http2;`],
    [/listen 80;/, `listen 127.0.0.1:${places.httpPort};`],
    [/server 127\.0\.0\.1:8080;/, `server 127.0.0.1:${places.upstreamPort};`],
    [/ssl_certificate +\S+;/, `ssl_certificate ${places.certificate};`],
    [/ssl_certificate_key +\S+;/, `ssl_certificate_key ${places.key};`],
  ];
  return replacements.reduce((site, [pattern, replacement]) => {
    if (!pattern.test(site)) throw new Error(`the site file has no line matching ${pattern}`);
    return site.replace(pattern, replacement);
  }, text);
}

/** What Debian's /etc/nginx/nginx.conf would give the site, with every path under `dir`. */
function mainConfig(dir: string): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${dir}/site.conf;
}
`;
}

/**
 * fetch over node:https, which (unlike the global fetch) takes a CA and a local address: the
 * answer is a web Response, so that the tests' SSE reader and contract checks read it as usual.
 */
function fetchVia(
  url: string,
  init: RequestInit = {},
  options: { ca: string; localAddress?: string | undefined },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? "GET",
        headers: Object.fromEntries(new Headers(init.headers)),
        ca: options.ca,
        localAddress: options.localAddress,
        signal: init.signal ?? undefined,
        agent: false,
      },
      (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of [value ?? []].flat()) headers.append(name, one);
        }
        const empty = res.statusCode === 204 || res.statusCode === 304;
        const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status: res.statusCode, headers }));
      },
    );
    req.once("error", reject);
    req.end(typeof init.body === "string" ? init.body : undefined);
  });
}

async function stopProcess(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  // SIGTERM is nginx's fast shutdown: a graceful one would wait for open bridges to end.
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? "")
    .split(":")
    .some((dir) => dir !== "" && existsSync(join(dir, command)));
}
