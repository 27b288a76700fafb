import type { DeviceList } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { account, nextList } from "./test-support/accounts.js";
import { bytes, member, str, type TestClient } from "./test-support/clients.js";
import { lyingDirectory } from "./test-support/devices.js";
import { startTestServer } from "./test-support/server.js";

const texts = async (client: TestClient) =>
  (await client.receive()).map((m) => ({
    from: m.from,
    to: m.to,
    text: str(m.plaintext),
    ...(m.sent ? { sent: m.sent } : {}),
  }));

describe("several devices per account", () => {
  it("sends to every device of an account and a sent copy to the sender's other devices", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const [alice1, alice2] = await account(server.url, directory, ["alice:1", "alice:2"]);
    const [bob1, bob2] = await account(server.url, directory, ["bob:1", "bob:2"]);

    const sent = await (bob1 as TestClient).send("alice", bytes("hello"));
    expect(sent.deliveries?.map((d) => [d.address, d.copy])).toEqual([
      ["alice:1", false],
      ["alice:2", false],
      ["bob:2", true],
    ]);
    const message = { from: "bob:1", to: "alice", text: "hello" };
    expect(await texts(alice1 as TestClient)).toEqual([message]);
    expect(await texts(alice2 as TestClient)).toEqual([message]);
    expect(await texts(bob2 as TestClient)).toEqual([{ ...message, sent: true }]);
    expect(await texts(bob1 as TestClient)).toEqual([]);

    // A reply reaches both of bob's devices, and alice's other device gets the copy.
    await (alice2 as TestClient).send("bob", bytes("hi"));
    const reply = { from: "alice:2", to: "bob", text: "hi" };
    expect(await texts(bob1 as TestClient)).toEqual([reply]);
    expect(await texts(bob2 as TestClient)).toEqual([reply]);
    expect(await texts(alice1 as TestClient)).toEqual([{ ...reply, sent: true }]);
    for (const client of [alice1, alice2, bob1, bob2]) expect(client?.errors).toEqual([]);
  });

  it("deposits a send to an account in one request, and one by one on a server without that route", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const requests: string[] = [];
    const oldServer = { value: false };
    const counting: typeof globalThis.fetch = async (input, init) => {
      const { pathname } = new URL(String(input));
      if (init?.method === "POST" && /^\/v1\/(deposits|inbox\/[^/]+)$/.test(pathname)) {
        requests.push(pathname.startsWith("/v1/deposits") ? "batch" : "one");
        if (oldServer.value && pathname === "/v1/deposits") {
          const body = { name: "NotFound", code: "SVC_NOT_FOUND", message: "no such route" };
          return new Response(JSON.stringify(body), { status: 404 });
        }
      }
      return directory.fetch(input, init);
    };
    const [alice1, alice2, alice3] = await account(server.url, directory, [
      "alice:1",
      "alice:2",
      "alice:3",
    ]);
    const [bob] = await account(server.url, directory, ["bob:1"], counting);
    requests.length = 0;
    await (bob as TestClient).send("alice", bytes("one request"));
    expect(requests).toEqual(["batch"]);

    oldServer.value = true;
    requests.length = 0;
    await (bob as TestClient).send("alice", bytes("three requests"));
    await (bob as TestClient).send("alice", bytes("three again"));
    // The batch is asked for once; from then on this server gets one deposit per device.
    expect(requests).toEqual(["batch", ...Array(6).fill("one")]);
    for (const device of [alice1, alice2, alice3]) {
      expect((await texts(device as TestClient)).map((m) => m.text)).toEqual([
        "one request",
        "three requests",
        "three again",
      ]);
    }
  });

  it("starts an account's list on its first device, once, and a send to the account then reaches it", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const alice = await member(server.url, "alice:1", { fetch: directory.fetch });
    const bob = await member(server.url, "bob:1");
    await expect(alice.deviceList("alice")).resolves.toBeUndefined();
    const started = { account: "alice", version: 1, devices: [{ address: "alice:1" }] };
    expect(await alice.startDeviceList()).toMatchObject(started);
    expect(await alice.startDeviceList()).toMatchObject(started);
    expect(directory.written.get("alice")).toHaveLength(1);
    await bob.send("alice", bytes("to your account"));
    expect(await texts(alice)).toEqual([{ from: "bob:1", to: "alice", text: "to your account" }]);
    const loner = await member(server.url, "carol");
    await expect(loner.startDeviceList()).rejects.toMatchObject({ code: "NO_ACCOUNT" });
  });

  it("still sends to a device address as it is, with `to` its own address on the other side", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const [alice1] = await account(server.url, directory, ["alice:1", "alice:2"]);
    const carol = await member(server.url, "carol", { fetch: directory.fetch, kt: "off" });
    await carol.send("alice:1", bytes("just you"));
    expect(await texts(alice1 as TestClient)).toEqual([
      { from: "carol", to: "alice", text: "just you" },
    ]);
    await (alice1 as TestClient).send("carol", bytes("back"));
    expect(await texts(carol)).toEqual([{ from: "alice:1", to: "carol", text: "back" }]);
  });

  it("refuses a ghost device the server adds (a version its devices did not sign): nothing is sent", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const deposits: string[] = [];
    const watched: typeof fetch = (input, init) => {
      const { pathname } = new URL(String(input));
      if (init?.method === "POST" && /^\/v1\/inbox\/[^/]+:\d+$/.test(pathname)) {
        deposits.push(pathname);
      }
      return directory.fetch(input, init);
    };
    const [alice1] = await account(server.url, directory, ["alice:1"]);
    // A device the server registered itself, under an address of alice's account.
    const ghost = await member(server.url, "alice:9", { fetch: directory.fetch, kt: "off" });
    const bob = await member(server.url, "bob:1", { fetch: watched, kt: "off" });
    const [one] = directory.written.get("alice") as [DeviceList];
    directory.served.set("alice", [
      one,
      await nextList(
        one,
        [
          { address: "alice:1", client: alice1 as TestClient },
          { address: "alice:9", client: ghost },
        ],
        { address: "alice:9", client: ghost },
      ),
    ]);
    await expect(bob.send("alice", bytes("secret"))).rejects.toMatchObject({
      code: "DEVICE_LIST_INVALID",
      message: expect.stringContaining("DEVICE_LIST_SIGNER_NOT_LISTED"),
    });
    expect(deposits).toEqual([]);
    expect(await texts(ghost)).toEqual([]);
    expect(await texts(alice1 as TestClient)).toEqual([]);
  });

  it("stops sending to a removed device: nothing sent after the removal reaches it", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const [alice1, alice2] = await account(server.url, directory, ["alice:1", "alice:2"]);
    const [bob] = (await account(server.url, directory, ["bob:1"])) as [TestClient];
    await bob.send("alice", bytes("before"));
    expect(await (alice1 as TestClient).removeDevice("alice:2")).toMatchObject({
      account: "alice",
      version: 3,
      devices: [{ address: "alice:1" }],
    });
    const after = await bob.send("alice", bytes("after"));
    expect(after.deliveries?.map((d) => d.address)).toEqual(["alice:1"]);
    expect((await texts(alice2 as TestClient)).map((m) => m.text)).toEqual(["before"]);
    expect((await texts(alice1 as TestClient)).map((m) => m.text)).toEqual(["before", "after"]);
    // Nor does a copy of what alice:1 sends.
    await (alice1 as TestClient).send("bob", bytes("from one"));
    expect(await texts(alice2 as TestClient)).toEqual([]);
  });

  it("applies a change again on the version another device wrote first (a 409 from the server)", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const [alice1, alice2] = (await account(server.url, directory, [
      "alice:1",
      "alice:2",
      "alice:3",
    ])) as [TestClient, TestClient];
    let raced = false;
    directory.beforeWrite.run = async () => {
      if (raced) return;
      raced = true;
      await alice2.removeDevice("alice:3");
    };
    expect(await alice1.removeDevice("alice:2")).toMatchObject({
      version: 4,
      devices: [{ address: "alice:1" }],
    });
    expect(directory.written.get("alice")?.map((list) => list.devices.length)).toEqual([
      1, 3, 2, 1,
    ]);
  });

  it("refuses a version rewritten after it was seen, or a list older than the one seen", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const [alice1, alice2] = await account(server.url, directory, ["alice:1", "alice:2"]);
    const bob = await member(server.url, "bob:1", { fetch: directory.fetch, kt: "off" });
    expect((await bob.deviceList("alice"))?.version).toBe(2);
    const [one, two] = directory.written.get("alice") as [DeviceList, DeviceList];
    directory.served.set("alice", [one]);
    await expect(bob.send("alice", bytes("x"))).rejects.toMatchObject({
      code: "DEVICE_LIST_INVALID",
      message: expect.stringContaining("older than version 2"),
    });
    // Another version 2, signed by a listed device all the same: a fork of what bob saw.
    const fork = await nextList(one, [{ address: "alice:2", client: alice2 as TestClient }], {
      address: "alice:1",
      client: alice1 as TestClient,
    });
    directory.served.set("alice", [one, fork]);
    await expect(bob.deviceList("alice")).rejects.toMatchObject({ code: "DEVICE_LIST_INVALID" });
    directory.served.set("alice", []);
    await expect(bob.send("alice", bytes("x"))).rejects.toMatchObject({
      code: "DEVICE_LIST_INVALID",
      message: expect.stringContaining("version 2 was seen"),
    });
    directory.served.set("alice", [one, two]);
    expect((await bob.send("alice", bytes("x"))).deliveries).toHaveLength(2);
  });

  it("with key transparency required, refuses a list served without its proof", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    await account(server.url, directory, ["alice:1"]);
    const bob = await member(server.url, "bob:1", { fetch: directory.fetch });
    directory.served.set("alice", directory.written.get("alice") as DeviceList[]);
    await expect(bob.send("alice", bytes("x"))).rejects.toMatchObject({
      code: "DEVICE_LIST_INVALID",
      message: expect.stringContaining("KT_PROOF_MISSING"),
    });
  });

  it("refuses a list whose KT proof is not of it (a version the log does not commit)", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    await account(server.url, directory, ["alice:1"]);
    const bob = await member(server.url, "bob:1", { fetch: directory.fetch });
    // A real proof from the log, but of alice:1's identity keys, not of alice's list.
    directory.ktProof.value = (await bob.api.keysBundle("alice:1")).ktProof;
    expect(directory.ktProof.value).toBeDefined();
    directory.served.set("alice", directory.written.get("alice") as DeviceList[]);
    await expect(bob.send("alice", bytes("x"))).rejects.toMatchObject({
      code: "DEVICE_LIST_INVALID",
      message: expect.stringContaining("key-transparency proof fails"),
    });
  });

  it("follows a chain of many versions from the one seen, and refuses one bad step in it", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const [alice1, alice2] = (await account(server.url, directory, ["alice:1", "alice:2"])) as [
      TestClient,
      TestClient,
    ];
    const bob = await member(server.url, "bob:1", { fetch: directory.fetch, kt: "off" });
    expect((await bob.deviceList("alice"))?.version).toBe(2);
    const versions = [...(directory.written.get("alice") as DeviceList[])];
    const signer = { address: "alice:1", client: alice1 };
    const both = [signer, { address: "alice:2", client: alice2 }];
    while (versions.length < 40) {
      const previous = versions.at(-1) as DeviceList;
      versions.push(await nextList(previous, versions.length % 2 ? both : [signer], signer));
    }
    directory.served.set("alice", versions);
    expect((await bob.deviceList("alice"))?.version).toBe(40);

    // Version 50 signed by alice:2 where version 49 lists alice:1 alone.
    while (versions.length < 60) {
      const previous = versions.at(-1) as DeviceList;
      const by = versions.length === 49 ? both[1] : signer;
      versions.push(
        await nextList(previous, versions.length % 2 ? both : [signer], by as typeof signer),
      );
    }
    await expect(bob.deviceList("alice")).rejects.toMatchObject({
      code: "DEVICE_LIST_INVALID",
      message: expect.stringContaining("version 50: "),
    });
  });
});
