import { describe, expect, it } from "vitest";
import { bytes, member } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";
import { delay } from "./test-support/wire.js";

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await delay(50);
  }
}

describe("one-time prekey replenishment", () => {
  it("tops the server up to the target once it holds fewer than the threshold", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1", { prekeys: { target: 10, threshold: 5 } });
    const alice = await member(server.url, "alice:1");
    expect(await bob.keysStatus()).toEqual({
      address: "bob:1",
      oneTimePreKeysOnServer: 10,
      oneTimePreKeysLocal: 10,
      signedPreKeyId: 1,
      kemPreKeysOnServer: 10,
      kemPreKeysLocal: 10,
    });

    // Five bundles leave five: not below the threshold, so a batch changes nothing.
    for (let i = 0; i < 5; i++) await alice.api.keysBundle("bob:1");
    await bob.receive();
    await delay(200);
    expect((await bob.keysStatus()).oneTimePreKeysOnServer).toBe(5);

    // A first message takes the sixth; bob, subscribed, uses it up and replenishes.
    const subscription = bob.subscribe(() => undefined);
    await alice.send("bob:1", bytes("hi"));
    await until(async () => (await bob.keysStatus()).oneTimePreKeysOnServer === 10);
    subscription.close();
    await subscription.closed;
    const status = await bob.keysStatus();
    // 10 registered + 6 uploaded, less the one used (the 5 fetched without a message stay).
    expect(status.oneTimePreKeysLocal).toBe(15);
    expect(bob.errors).toEqual([]);
  });

  it("replenishPrekeys tops up to the target whatever the threshold, with fresh keyIds", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1", { prekeys: { target: 30, threshold: 1 } });
    const alice = await member(server.url, "alice:1");
    for (let i = 0; i < 3; i++) await alice.api.keysBundle("bob:1");
    expect(await bob.replenishPrekeys()).toBe(3);
    expect(await bob.replenishPrekeys()).toBe(0);
    const seen = new Set<number>();
    for (let i = 0; i < 30; i++) {
      const bundle = await alice.api.keysBundle("bob:1");
      seen.add(bundle.oneTimePreKey?.keyId ?? -1);
    }
    expect(seen.size).toBe(30);
    expect([...seen].every((id) => id >= 4 && id <= 33)).toBe(true);
  });

  it("registers more than 100 one-time prekeys in batches the server accepts", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1", { prekeys: { target: 250 } });
    expect((await bob.keysStatus()).oneTimePreKeysOnServer).toBe(250);
  });
});
