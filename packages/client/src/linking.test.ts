import { describe, expect, it } from "vitest";
import { LINK_ATTEMPTS } from "./linking.js";
import { bytes, member, str, testClient } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";

/** A code naming `device` with a secret nobody was shown. */
const wrongCode = (device: string) => `${device}-0000-0000-0000-0000`;

describe("linking a device", () => {
  it("adds a new device by code: both see the list, and messages reach both", async () => {
    const server = await startTestServer();
    const alice1 = await member(server.url, "alice:1");
    const alice2 = await testClient(server.url);
    const bob = await member(server.url, "bob:1");
    let code: string | undefined;
    const linking = alice1.approveLink({
      onCode: (shown) => {
        code = shown;
      },
    });
    while (code === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(code).toMatch(/^1-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    // A message arriving while alice:1 waits for the new device stays for receive.
    await bob.send("alice:1", bytes("meanwhile"));
    const joined = await alice2.linkDevice("alice:2", code);
    expect(await linking).toEqual({ linked: "alice:2", version: 2 });
    expect(joined).toMatchObject({
      account: "alice",
      version: 2,
      devices: [{ address: "alice:1" }, { address: "alice:2" }],
    });
    expect((await alice1.deviceList("alice"))?.version).toBe(2);

    await bob.send("alice", bytes("to both"));
    const received = async (device: typeof alice1) =>
      (await device.receive()).map((m) => [m.from, m.to, str(m.plaintext)]);
    expect(await received(alice1)).toEqual([
      ["bob:1", "alice", "meanwhile"],
      ["bob:1", "alice", "to both"],
    ]);
    expect(await received(alice2)).toEqual([["bob:1", "alice", "to both"]]);
    expect(alice1.errors).toEqual([]);
    expect(alice2.errors).toEqual([]);
  });

  it("refuses a device that gives a wrong code, voids the code after three, and lets a device ask again", async () => {
    const server = await startTestServer();
    const options = { kt: "off" as const };
    const alice1 = await member(server.url, "alice:1", options);
    const linking = alice1.approveLink({ timeoutMs: 120_000 });
    const outcome = linking.then(
      () => "linked",
      (error: { code?: string }) => error.code,
    );
    let last: Awaited<ReturnType<typeof testClient>> | undefined;
    for (let i = 2; i < 2 + LINK_ATTEMPTS; i++) {
      const intruder = await testClient(server.url, options);
      last = intruder;
      await expect(
        intruder.linkDevice(`alice:${i}`, wrongCode("1"), { timeoutMs: 60_000 }),
      ).rejects.toMatchObject({
        code: "LINK_REFUSED",
      });
    }
    expect(await outcome).toBe("LINK_REFUSED");
    expect((await alice1.deviceList("alice"))?.devices.map((d) => d.address)).toEqual(["alice:1"]);
    // The last one, registered already, may ask again with a good code.
    let code: string | undefined;
    const again = alice1.approveLink({
      onCode: (shown) => {
        code = shown;
      },
    });
    while (code === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await last?.linkDevice(`alice:${1 + LINK_ATTEMPTS}`, code))?.version).toBe(2);
    expect(await again).toEqual({ linked: `alice:${1 + LINK_ATTEMPTS}`, version: 2 });
  });

  it("gives up with LINK_TIMEOUT when no device asks in time", async () => {
    const server = await startTestServer();
    const alice1 = await member(server.url, "alice:1", { kt: "off" });
    await expect(alice1.approveLink({ timeoutMs: 300 })).rejects.toMatchObject({
      code: "LINK_TIMEOUT",
    });
  });
});
