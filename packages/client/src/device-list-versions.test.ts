import { type DeviceList, deviceListToJson } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { memoryStore } from "./store.js";
import { account, nextList } from "./test-support/accounts.js";
import { bytes, member, str, type TestClient } from "./test-support/clients.js";
import { lyingDirectory } from "./test-support/devices.js";
import { startTestServer } from "./test-support/server.js";

/**
 * A fetch in front of `forward` that records each request as "<method> <path>: <status>" and,
 * with `old.value`, answers a batch naming deviceLists as a server that predates them does.
 */
function recording(forward: typeof globalThis.fetch) {
  const requests: string[] = [];
  const old = { value: false };
  /** Every batch answered 409, as by a server whose lists keep changing. */
  const changing = { value: false };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const { pathname } = new URL(String(input));
    const method = init?.method ?? "GET";
    let response: Response;
    if (changing.value && pathname === "/v1/deposits") {
      const body = {
        name: "Conflict",
        code: "SVC_DEVICE_LIST_CHANGED",
        message: "a device list this batch names is not the latest: alice",
        deviceLists: [{ account: "alice", version: 99 }],
      };
      response = new Response(JSON.stringify(body), {
        status: 409,
        headers: { "content-type": "application/json" },
      });
    } else if (
      old.value &&
      pathname === "/v1/deposits" &&
      String(init?.body).includes('"deviceLists"')
    ) {
      const body = {
        name: "BadRequest",
        code: "SVC_BAD_REQUEST",
        message: "deviceLists: only deposits is allowed",
      };
      response = new Response(JSON.stringify(body), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    } else {
      response = await forward(input, init);
    }
    requests.push(`${method} ${pathname}: ${response.status}`);
    return response;
  };
  return { fetch, requests, old, changing };
}

const texts = async (client: TestClient) => (await client.receive()).map((m) => str(m.plaintext));

/**
 * Alice's three devices and bob's one, bob's requests recorded, after bob's first send. Bob's
 * clock is `clock.offset` ms ahead; his store's saves are counted.
 */
async function setup() {
  const server = await startTestServer();
  const directory = lyingDirectory();
  const wire = recording(directory.fetch);
  const clock = { offset: 0 };
  const saves = { count: 0 };
  const store = memoryStore();
  const counted = {
    ...store,
    save: (state: Parameters<typeof store.save>[0]) => {
      saves.count++;
      return store.save(state);
    },
  };
  const alice = (await account(server.url, directory, ["alice:1", "alice:2", "alice:3"])) as [
    TestClient,
    TestClient,
    TestClient,
  ];
  const [bob] = (await account(server.url, directory, ["bob:1"], wire.fetch, {
    now: () => Date.now() + clock.offset,
    store: counted,
  })) as [TestClient];
  await bob.send("alice", bytes("first"));
  for (const device of alice) expect(await texts(device)).toEqual(["first"]);
  wire.requests.length = 0;
  saves.count = 0;
  return { server, directory, wire, clock, saves, alice, bob };
}

describe("a send to an account names the device list versions it was chosen from", () => {
  it("sends a second message to an account in exactly one request", async () => {
    const { wire, saves, alice, bob } = await setup();
    const sent = await bob.send("alice", bytes("second"));
    expect(wire.requests).toEqual(["POST /v1/deposits: 200"]);
    expect(saves.count).toBe(1);
    expect(sent.deliveries?.map((d) => d.address)).toEqual(["alice:1", "alice:2", "alice:3"]);
    for (const device of alice) expect(await texts(device)).toEqual(["second"]);
    expect(bob.errors).toEqual([]);
  });

  it("reads the lists again when they were last read over two minutes ago", async () => {
    const { wire, clock, bob } = await setup();
    clock.offset = 2 * 60_000 + 1_000;
    await bob.send("alice", bytes("later"));
    expect(wire.requests).toEqual(
      expect.arrayContaining([
        "GET /v1/devices/alice: 200",
        "GET /v1/devices/bob: 200",
        "POST /v1/deposits: 200",
      ]),
    );
    wire.requests.length = 0;
    await bob.send("alice", bytes("at once"));
    expect(wire.requests).toEqual(["POST /v1/deposits: 200"]);
  });

  it("sends nothing to a device removed since the last send: the server's 409 makes the sender read the list again", async () => {
    const { wire, alice, bob } = await setup();
    await alice[0].removeDevice("alice:2");
    const sent = await bob.send("alice", bytes("after"));
    expect(sent.deliveries?.map((d) => d.address)).toEqual(["alice:1", "alice:3"]);
    expect(wire.requests[0]).toBe("POST /v1/deposits: 409");
    expect(wire.requests).toContain("GET /v1/devices/alice: 200");
    expect(wire.requests.at(-1)).toBe("POST /v1/deposits: 200");
    // Only the list that changed is read again.
    expect(wire.requests.filter((r) => r.startsWith("GET /v1/devices/bob"))).toEqual([]);
    expect(await texts(alice[1])).toEqual([]);
    expect(await texts(alice[0])).toEqual(["after"]);
    expect(await texts(alice[2])).toEqual(["after"]);
    wire.requests.length = 0;
    await bob.send("alice", bytes("again"));
    expect(wire.requests).toEqual(["POST /v1/deposits: 200"]);
  });

  it("sends to a device added since the last send, and once to the devices listed before", async () => {
    const { server, directory, wire, alice, bob } = await setup();
    const four = await member(server.url, "alice:4", { fetch: directory.fetch });
    const [previous] = (directory.written.get("alice") ?? []).slice(-1) as [DeviceList];
    const devices = [...alice, four].map((client, i) => ({ address: `alice:${i + 1}`, client }));
    const next = await nextList(previous, devices, devices[0] as (typeof devices)[0]);
    await alice[0].api.devicesWrite("alice", deviceListToJson(next));
    const sent = await bob.send("alice", bytes("welcome"));
    expect(sent.deliveries?.map((d) => d.address)).toEqual([
      "alice:1",
      "alice:2",
      "alice:3",
      "alice:4",
    ]);
    expect(wire.requests.filter((r) => r.startsWith("POST"))).toEqual([
      "POST /v1/deposits: 409",
      "POST /v1/deposits: 200",
    ]);
    for (const device of [...alice, four]) expect(await texts(device)).toEqual(["welcome"]);
  });

  it("gives up with DEVICE_LIST_CONFLICT when the lists keep changing, after three rounds", async () => {
    const { wire, alice, bob } = await setup();
    wire.changing.value = true;
    await expect(bob.send("alice", bytes("never"))).rejects.toMatchObject({
      code: "DEVICE_LIST_CONFLICT",
      message: expect.stringContaining("changed during the send 3 times"),
    });
    expect(wire.requests.filter((r) => r.startsWith("POST"))).toHaveLength(3);
    wire.changing.value = false;
    for (const device of alice) expect(await texts(device)).toEqual([]);
  });

  it("still sends through a server that predates deviceLists, reading the lists on each send", async () => {
    const server = await startTestServer();
    const directory = lyingDirectory();
    const wire = recording(directory.fetch);
    wire.old.value = true;
    const alice = (await account(server.url, directory, ["alice:1", "alice:2"])) as [
      TestClient,
      TestClient,
    ];
    const [bob] = (await account(server.url, directory, ["bob:1"], wire.fetch)) as [TestClient];
    await bob.send("alice", bytes("one"));
    expect(wire.requests.filter((r) => r.startsWith("POST /v1/deposits"))).toEqual([
      "POST /v1/deposits: 400",
      "POST /v1/deposits: 200",
    ]);
    wire.requests.length = 0;
    await bob.send("alice", bytes("two"));
    // Known not to check versions: the lists are read, the batch sent without them, once.
    expect(wire.requests.filter((r) => !r.startsWith("GET /v1/keys"))).toEqual(
      expect.arrayContaining(["GET /v1/devices/alice: 200", "POST /v1/deposits: 200"]),
    );
    expect(wire.requests.filter((r) => r.startsWith("POST /v1/deposits"))).toHaveLength(1);
    for (const device of alice) expect(await texts(device)).toEqual(["one", "two"]);
    expect(bob.errors).toEqual([]);
  });
});
