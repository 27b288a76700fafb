import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type SpawnedProcess, spawnProcess } from "@svc/processes";

const NGINX = "/usr/sbin/nginx";
/** Where Debian's libnginx-mod-nchan puts the module. */
const NCHAN_MODULE = "/usr/lib/nginx/modules/ngx_nchan_module.so";

/** Why the nchan rows cannot run here, or undefined when they can. */
export function nchanMissing(): string | undefined {
  if (!existsSync(NGINX)) return `${NGINX} is not installed (apt-get install nginx)`;
  if (!existsSync(NCHAN_MODULE)) {
    return `${NCHAN_MODULE} is not installed (apt-get install libnginx-mod-nchan)`;
  }
  return undefined;
}

/** An nchan server: one nginx worker, messages in memory only. */
export interface Nchan {
  /** POST a message here to publish it on `channel`. */
  publishPath(channel: string): string;
  /** An EventSource subscription to `channel` (send `Accept: text/event-stream`). */
  subscribeUrl(channel: string): string;
  readonly url: string;
  /** The resident set of the master and its workers together, in bytes. */
  residentBytes(): number;
  stop(): Promise<void>;
}

/**
 * nchan as its documentation sets up a publisher and an EventSource subscriber, with one worker
 * (the prekey server measured beside it is one Node process) and its default memory store: the
 * peer of a bridge without the durability. Runs in a prefix of its own under a temp directory.
 */
export async function startNchan(): Promise<Nchan> {
  const missing = nchanMissing();
  if (missing) throw new Error(missing);
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-nchan-"));
  // Workers run as another user when the bench runs as root.
  await chmod(dir, 0o755);
  const port = await freePort();
  await writeFile(join(dir, "nginx.conf"), config(dir, port));
  const nginx = spawnProcess(NGINX, [
    ...["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")],
    ...["-g", "daemon off;"],
  ]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(url, nginx);
  } catch (error) {
    await nginx.stop("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    publishPath: (channel) => `/pub?id=${encodeURIComponent(channel)}`,
    subscribeUrl: (channel) => `${url}/sub?id=${encodeURIComponent(channel)}`,
    residentBytes: () =>
      [nginx.pid, ...childrenOf(nginx.pid)].reduce((sum, pid) => sum + rss(pid), 0),
    async stop() {
      await nginx.stop("SIGQUIT", 5000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function config(dir: string, port: number): string {
  return `load_module ${NCHAN_MODULE};
worker_processes 1;
pid ${dir}/nginx.pid;
events { worker_connections 20000; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  server {
    listen 127.0.0.1:${port};
    location = /pub {
      nchan_publisher;
      nchan_channel_id $arg_id;
      nchan_message_buffer_length 16;
      nchan_message_timeout 60s;
    }
    location = /sub {
      nchan_subscriber eventsource;
      nchan_channel_id $arg_id;
    }
  }
}
`;
}

async function waitUntilAnswering(url: string, nginx: SpawnedProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (!nginx.alive()) throw new Error(`nginx ended: ${nginx.out.stderr}`);
    const answered = await fetch(`${url}/pub?id=ready`).catch(() => undefined);
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx did not answer on ${url} within 10 s`);
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) * 1024 : 0;
}
