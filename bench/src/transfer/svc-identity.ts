import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";

/**
 * A new identity on the prekey server, kept in a fileStore in `dir` as an svc user's is: what a
 * transfer's sender and receiver each need (signing, control envelopes, the directory).
 */
export async function openIdentity(server: string, dir: string, role: string): Promise<SvcClient> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const client = await SvcClient.open({
    server,
    store: fileStore(dir),
    ...nodeClientOptions(),
    onError: (error) => console.error(`${role} client reported:`, error),
  });
  await client.init(`bench-transfer-${role}-${randomBytes(6).toString("hex")}`);
  return client;
}
