import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KeyStore, memoryStore, SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import { DeliveryClock, type DeliveryPath } from "./fixed-rate.js";

export type StoreKind = "memory" | "file";

/**
 * @svc/client end to end: `alice.send(bob, plaintext)` (encrypt, state saved, signed deposit over
 * fetch) until bob's `subscribe` handler holds the decrypted plaintext (WebSocket bridge, state
 * saved); bob acks after the handler, as the client does. Both clients in this process, the
 * session started (bundle fetched and KT-verified, X3DH) before the first measured message.
 */
export async function clientDelivery(
  server: string,
  options: { plaintextBytes: number; store: StoreKind },
): Promise<DeliveryPath> {
  const run = Date.now().toString(36);
  const dirs: string[] = [];
  const store = async (): Promise<KeyStore> => {
    if (options.store === "memory") return memoryStore();
    const dir = await mkdtemp(join(tmpdir(), "svc-bench-e2e-"));
    dirs.push(dir);
    return fileStore(dir);
  };
  const open = async () =>
    SvcClient.open({ server, store: await store(), ...nodeClientOptions(), onError: report });
  const alice = await open();
  const bob = await open();
  const bobAddress = `bench-e2e-bob-${options.store}-${run}`;
  await alice.init(`bench-e2e-alice-${options.store}-${run}`);
  await bob.init(bobAddress);

  const clock = new DeliveryClock();
  let connected = () => {};
  const ready = new Promise<void>((resolve) => {
    connected = resolve;
  });
  const subscription = bob.subscribe(
    (message) => {
      const view = new DataView(message.plaintext.buffer, message.plaintext.byteOffset);
      clock.delivered(view.getUint32(0));
    },
    { transports: ["ws"], onTransport: () => connected() },
  );
  await ready;

  return {
    clock,
    async send(n) {
      const plaintext = new Uint8Array(options.plaintextBytes).fill(0x61);
      new DataView(plaintext.buffer).setUint32(0, n);
      await alice.send(bobAddress, plaintext);
    },
    async close() {
      subscription.close();
      await alice.close();
      await bob.close();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
}

let reported = 0;
/** The clients' non-fatal problems (reconnects, failed acks): the first few, not thousands. */
function report(error: unknown): void {
  if (reported++ < 5) console.error("client reported:", error);
}
