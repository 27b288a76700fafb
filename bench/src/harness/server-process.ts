import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { encodeBase64Url } from "@svc/canonical";
import { spawnNode } from "@svc/processes";
import { generateVapidKeys } from "@svc/web-push";

export interface ServerProcess {
  url: string;
  /** The server's process id, when it runs in a process of its own (for its CPU time). */
  pid?: number | undefined;
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(
  new URL(
    import.meta.url.endsWith(".ts") ? "./server-child.ts" : "./server-child.js",
    import.meta.url,
  ),
);

/**
 * Starts the prekey server in a process of its own, as it runs when deployed, so that the load
 * generator does not share its event loop. `env` is the server's configuration; without
 * DATABASE_URL or SVC_DATA_DIR it runs on an in-memory PGlite. Key-transparency and VAPID keys not given
 * are fresh ones: a server that generated its own would write them into ./data, kept across runs.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const fresh = () => randomBytes(32).toString("base64");
  const config = {
    SVC_KT_SIGNING_KEY: fresh(),
    SVC_KT_VRF_KEY: fresh(),
    SVC_PUSH_VAPID_KEY: encodeBase64Url(generateVapidKeys().privateKey),
    ...env,
  };
  const child = spawnNode(CHILD, [JSON.stringify(config)], {
    flags: process.execArgv,
    inheritEnv: true,
    output: "inherit",
    ipc: true,
  });
  const { port } = (await child.nextMessage()) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      child.send("stop");
      await child.ended;
    },
  };
}
