import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { encodeBase64 } from "@svc/canonical";
import type { SvcClient } from "@svc/client";
import { createTestStorage, hasTestPostgres } from "@svc/db/testing";
import {
  type ChunkCipher,
  type ControlMessage,
  newStreamId,
  sha256Hex,
} from "@svc/protocol/transfer";
import { Hono } from "hono";
import { nodeChunkCipher } from "../cipher/node-chunk-cipher.js";
import { type MountedReceiver, mountTransferReceiver } from "../receiver/mount.js";
import type { ReceivedFile, TransferReceiverOptions } from "../receiver/options.js";
import { transferMigrations } from "../schema.js";
import { databaseTransferStore } from "../store/database-store.js";
import { fileTransferStore } from "../store/file-store.js";
import type { TransferStore } from "../store/transfer-store.js";
import { type Closer, registeredClient, startDirectory, tempDir } from "./directory.js";
import { controlRequest, type Signer } from "./signed-requests.js";

/** Three identities on one directory: the receiver, the sender, and a stranger. */
export interface Peers {
  /** The directory's URL. */
  directory: string;
  receiver: SvcClient;
  receiverAddress: string;
  sender: Signer & { client: SvcClient };
  stranger: Signer & { client: SvcClient };
}

export async function startPeers(closers: Closer[]): Promise<Peers> {
  const server = await startDirectory(closers);
  const [receiver, sender, stranger] = await Promise.all([
    registeredClient(closers, server, "bob@example.org:1"),
    registeredClient(closers, server, "alice@example.org:1"),
    registeredClient(closers, server, "mallory@example.org:1"),
  ]);
  return {
    directory: server,
    receiver,
    receiverAddress: "bob@example.org:1",
    sender: { client: sender, address: "alice@example.org:1" },
    stranger: { client: stranger, address: "mallory@example.org:1" },
  };
}

/** How a test keeps stream state: a store, and a new instance over the same data (a restart). */
export interface StoreKind {
  name: string;
  skip: boolean;
  open(closers: Closer[]): Promise<() => TransferStore>;
}

export const STORE_KINDS: StoreKind[] = [
  {
    name: "file store",
    skip: false,
    async open(closers) {
      const dir = await tempDir(closers, "svc-transfer-streams-");
      return () => fileTransferStore({ dir: join(dir, "streams") });
    },
  },
  ...(["pglite", "postgres"] as const).map(
    (kind): StoreKind => ({
      name: `database store on ${kind === "pglite" ? "PGlite" : "PostgreSQL"}`,
      skip: kind === "postgres" && !hasTestPostgres(),
      async open(closers) {
        const storage = await createTestStorage({ migrations: [transferMigrations], kind });
        closers.push(() => storage.close());
        return () => databaseTransferStore({ db: storage.db });
      },
    }),
  ),
];

/** A cipher that counts what it opens: proof that a refused chunk was never decrypted. */
export function countingCipher(): ChunkCipher & { opened: number } {
  return {
    opened: 0,
    envelopeType: nodeChunkCipher.envelopeType,
    seal: nodeChunkCipher.seal,
    open(key, nonce, ad, ciphertext) {
      this.opened++;
      return nodeChunkCipher.open(key, nonce, ad, ciphertext);
    },
  };
}

/** A Hono app with only the receiver mounted, and what it reported finished. */
export interface TestReceiver {
  app: Hono;
  mounted: MountedReceiver;
  dir: string;
  finished: ReceivedFile[];
  send(request: Request | Promise<Request>): Promise<Response>;
}

export function testReceiver(
  options: Omit<TransferReceiverOptions, "onFinished"> & { dir: string },
): TestReceiver {
  const finished: ReceivedFile[] = [];
  const app = new Hono();
  const mounted = mountTransferReceiver(app, {
    ...options,
    onFinished: (file) => void finished.push(file),
  });
  return {
    app,
    mounted,
    dir: options.dir,
    finished,
    send: async (request) => app.fetch(await request),
  };
}

/** A version 1 start, which names the file's SHA-256. */
export type StartMessage = Extract<ControlMessage, { type: "start"; sha256: string }>;
/** A version 2 start: the file's SHA-256 comes with the finish. */
export type StartV2Message = Extract<ControlMessage, { type: "start"; version: 2 }>;

/** A start message for `content`, with a fresh stream id and key. */
export function startFor(
  content: Uint8Array,
  shape: { lanes: number; chunkBytes: number; name?: string },
): { start: StartMessage; key: Uint8Array } {
  const key = new Uint8Array(randomBytes(32));
  const start: StartMessage = {
    type: "start",
    streamId: newStreamId(),
    name: shape.name ?? "file.bin",
    size: content.length,
    sha256: sha256Hex(content),
    lanes: shape.lanes,
    chunkBytes: shape.chunkBytes,
    key: encodeBase64(key),
  };
  return { start, key };
}

/** Sends a control message from the peers' sender to their receiver. */
export function sendControl(
  peers: Peers,
  receiver: TestReceiver,
  message: ControlMessage,
): Promise<Response> {
  return receiver.send(
    controlRequest(peers.sender.client, peers.sender.address, peers.receiverAddress, message),
  );
}

/** A version 2 start message for `content`, with a fresh stream id and key; and its SHA-256. */
export function startV2For(
  content: Uint8Array,
  shape: { lanes: number; chunkBytes: number; name?: string },
): { start: StartV2Message; key: Uint8Array; sha256: string } {
  const { start, key } = startFor(content, shape);
  const { sha256, ...rest } = start;
  return { start: { ...rest, version: 2 }, key, sha256 };
}
