import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bytes, member, str, testClient } from "../test-support/clients.js";
import { startTestServer } from "../test-support/server.js";
import { delay } from "../test-support/wire.js";
import { fileStore } from "./file-store.js";

const MESSAGES = 40;
const numbered = (prefix: string) => Array.from({ length: MESSAGES }, (_, i) => `${prefix} ${i}`);

async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await delay(20);
  }
}

describe("two clients on one file store", () => {
  it("one subscribed, one sending to the same peer: nothing lost, nothing handed over twice", async () => {
    const server = await startTestServer();
    const dir = await mkdtemp(join(tmpdir(), "svc-shared-store-"));
    // Each client has its own fileStore on the directory, as two processes would.
    const aliceListener = await testClient(server.url, { store: fileStore(dir) });
    await aliceListener.init("alice:1");
    const aliceSender = await testClient(server.url, { store: fileStore(dir) });
    const bob = await member(server.url, "bob:1");
    expect(await aliceSender.whoami()).toEqual(await aliceListener.whoami());

    const aliceGot: string[] = [];
    const bobGot: string[] = [];
    const subscriptions = [
      aliceListener.subscribe((m) => {
        aliceGot.push(`${m.from} ${str(m.plaintext)}`);
      }),
      bob.subscribe((m) => {
        bobGot.push(`${m.from} ${str(m.plaintext)}`);
      }),
    ];
    // Both directions at once: alice's decrypting and sending share the ratchet session with bob.
    await Promise.all([
      (async () => {
        for (const text of numbered("to bob")) await aliceSender.send("bob:1", bytes(text));
      })(),
      (async () => {
        for (const text of numbered("to alice")) await bob.send("alice:1", bytes(text));
      })(),
    ]);
    await until(() => aliceGot.length >= MESSAGES && bobGot.length >= MESSAGES);
    await delay(300);
    for (const subscription of subscriptions) subscription.close();
    await Promise.all(subscriptions.map((s) => s.closed));

    expect(aliceGot).toEqual(numbered("bob:1 to alice"));
    expect(bobGot).toEqual(numbered("alice:1 to bob"));
    expect([...aliceListener.errors, ...aliceSender.errors, ...bob.errors]).toEqual([]);
    const state = JSON.parse(await readFile(join(dir, "state.json"), "utf8"));
    expect(Object.keys(state.unacked)).toEqual([]);
    expect(state.recentlyAcked).toHaveLength(MESSAGES);
    // What one client acked, the other knows: a drain from it hands over nothing again.
    expect(await aliceSender.receive()).toEqual([]);
  }, 120_000);
});
