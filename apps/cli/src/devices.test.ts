import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeBase64 } from "@svc/canonical";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { type DeviceList, deviceListHash, signDeviceList } from "@svc/protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import { startLyingRelay } from "./test-support/devices.js";
import { type Closer, startTestServer, svc, tempDir } from "./test-support/server.js";

beforeAll(async () => (await createTestStorage({ migrations })).close());

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** A server with KT behind a relay that can lie about device lists, and `svc` in named homes. */
async function world() {
  const server = await startTestServer(closers);
  const relay = await startLyingRelay(server.url, closers);
  const root = await tempDir(closers, "svc-cli-devices-");
  const homeOf = (name: string) => join(root, name);
  const as = (name: string, ...argv: string[]) => svc(relay.url, homeOf(name), argv);
  return { as, homeOf, relay };
}

type World = Awaited<ReturnType<typeof world>>;

/** `svc devices link` in `existing`'s home and `svc init --link` in `home` for `address`. */
async function link({ as }: World, existing: string, home: string, address: string) {
  const linking = as(existing, "devices", "link", "--json", "--timeout", "60");
  await until(() => linking.stdout.length > 0 || linking.stderr.length > 0, 20_000);
  const [shown] = parse(linking.stdout);
  const joined = await as(
    home,
    "init",
    "--address",
    address,
    "--link",
    String(shown?.code),
    "--json",
  );
  const linked = await linking;
  return { shown, joined, linked };
}

describe("svc devices", () => {
  it("stops waiting on Ctrl-C: devices link and init --link exit 130 with one INTERRUPTED line", async () => {
    const w = await world();
    expect((await w.as("alice1", "init", "--address", "alice:1")).code).toBe(EXIT.ok);
    const ctrlC = new AbortController();
    const linking = svc(w.relay.url, w.homeOf("alice1"), ["devices", "link", "--json"], {
      signal: ctrlC.signal,
    });
    await until(() => linking.stdout.length > 0, 20_000);
    const code = String(parse(linking.stdout)[0]?.code);
    ctrlC.abort();
    const stopped = await linking;
    expect(stopped.code).toBe(EXIT.interrupted);
    expect(parse(stopped.stderr)).toEqual([
      {
        error: "INTERRUPTED",
        message: "stopped by a signal before the link was done; its code is void",
      },
    ]);

    // The new device waits for an approval that no longer comes, until Ctrl-C.
    const ctrlC2 = new AbortController();
    const joining = svc(
      w.relay.url,
      w.homeOf("alice2"),
      ["init", "--address", "alice:2", "--link", code, "--json"],
      { signal: ctrlC2.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await Promise.race([joining.then(() => "ended"), Promise.resolve("waiting")])).toBe(
      "waiting",
    );
    ctrlC2.abort();
    const left = await joining;
    expect(left.code).toBe(EXIT.interrupted);
    expect(left.stderr.join("\n")).toContain("INTERRUPTED");
  });

  it("links a device by code, lists the account, fans out and copies, and removes a device", async () => {
    const w = await world();
    const { as } = w;
    expect((await as("alice1", "init", "--address", "alice:1")).code).toBe(EXIT.ok);
    const { shown, joined, linked } = await link(w, "alice1", "alice2", "alice:2");
    expect(shown).toEqual({
      code: expect.stringMatching(/^1-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/),
      expiresAt: expect.any(Number),
    });
    expect(linked).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(parse(linked.stdout)[1]).toEqual({ linked: "alice:2", version: 2 });
    expect(joined).toMatchObject({ code: EXIT.ok, stderr: [] });
    const list = parse(joined.stdout)[0];
    expect(list).toMatchObject({
      account: "alice",
      version: 2,
      devices: [{ address: "alice:1" }, { address: "alice:2" }],
    });
    expect(Object.keys(list ?? {})).toEqual(["account", "version", "devices"]);
    expect(parse((await as("alice1", "devices", "list", "--json")).stdout)).toEqual([list]);
    expect((await as("alice1", "devices", "list")).stdout[0]).toContain(
      "alice: device list version 2",
    );

    expect((await as("bob1", "init", "--address", "bob:1")).code).toBe(EXIT.ok);
    await link(w, "bob1", "bob2", "bob:2");
    const sent = await as("bob1", "send", "alice", "hello both", "--json");
    expect(sent).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(parse(sent.stdout)[0]).toMatchObject({
      to: "alice",
      deliveries: [
        { address: "alice:1", copy: false },
        { address: "alice:2", copy: false },
        { address: "bob:2", copy: true },
      ],
    });
    const line = { from: "bob:1", to: "alice", text: "hello both", msgId: expect.any(String) };
    for (const home of ["alice1", "alice2"]) {
      const drained = await as(home, "listen", "--drain", "--json");
      expect(parse(drained.stdout)).toEqual([line]);
      expect(Object.keys(parse(drained.stdout)[0] ?? {})).toEqual(["from", "to", "text", "msgId"]);
    }
    const copy = await as("bob2", "listen", "--drain", "--json");
    expect(parse(copy.stdout)).toEqual([{ ...line, sent: true }]);
    expect((await as("bob2", "listen", "--drain")).stdout).toEqual([]);

    const removed = await as("alice1", "devices", "remove", "alice:2", "--json");
    expect(removed).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(parse(removed.stdout)[0]).toMatchObject({
      version: 3,
      devices: [{ address: "alice:1" }],
    });
    expect((await as("bob2", "send", "alice", "after")).code).toBe(EXIT.ok);
    expect((await as("alice2", "listen", "--drain", "--json")).stdout).toEqual([]);
    expect(parse((await as("alice1", "listen", "--drain", "--json")).stdout)).toEqual([
      { from: "bob:2", to: "alice", text: "after", msgId: expect.any(String) },
    ]);
  });

  it("refuses a device linked with a wrong code (exit 3), and the list stays as it was", async () => {
    const w = await world();
    const { as } = w;
    expect((await as("alice1", "init", "--address", "alice:1")).code).toBe(EXIT.ok);
    const linking = as("alice1", "devices", "link", "--timeout", "8");
    await until(() => linking.stderr.length > 0 || linking.stdout.length > 0, 20_000);
    expect(linking.stdout[0]).toMatch(/^code: 1-/);
    const wrong = await as(
      "intruder",
      "init",
      "--address",
      "alice:2",
      "--link",
      "1-0000-0000-0000-0000",
    );
    expect(wrong.code).toBe(EXIT.verification);
    expect(wrong.stderr).toEqual(["svc: error: alice:1 refused the link: the code is wrong"]);
    const list = await as("alice1", "devices", "list", "--json");
    expect(parse(list.stdout)[0]).toMatchObject({ version: 1, devices: [{ address: "alice:1" }] });
    // The wrong code was one attempt of three: the code stands until its time is up.
    expect(await linking).toMatchObject({
      code: EXIT.timeout,
      stderr: ["svc: error: no device answered the link in time"],
    });
  });

  it("refuses a ghost device the server adds to an account: exit 3, nothing sent", async () => {
    const w = await world();
    const { as, homeOf, relay } = w;
    expect((await as("alice1", "init", "--address", "alice:1")).code).toBe(EXIT.ok);
    await link(w, "alice1", "alice2", "alice:2");
    expect((await as("ghost", "init", "--address", "alice:9")).code).toBe(EXIT.ok);
    expect((await as("bob", "init", "--address", "bob:1")).code).toBe(EXIT.ok);
    // The server's own version 3: alice's devices and its own, signed by its own device.
    const ghost = JSON.parse(await readFile(join(homeOf("ghost"), "state.json"), "utf8"));
    const [one, two] = relay.written.get("alice") as [DeviceList, DeviceList];
    const served = await fetch(`${relay.url}/v1/devices/alice`);
    relay.ktProof.value = ((await served.json()) as { ktProof: unknown }).ktProof;
    const forged = signDeviceList(
      {
        account: "alice",
        version: 3,
        previousHash: deviceListHash(two),
        devices: [
          ...two.devices,
          {
            address: "alice:9",
            identitySigningKey: decodeBase64(ghost.identity.identitySigningKey, 32),
          },
        ],
        signer: "alice:9",
      },
      decodeBase64(ghost.identity.signingSeed, 32),
    );
    relay.served.set("alice", [one, two, forged]);
    // Served with the log's proof of version 2: the forged version is not what the log commits.
    const refused = await as("bob", "send", "alice", "secret", "--json");
    expect(refused.code).toBe(EXIT.verification);
    expect(parse(refused.stderr)[0]).toMatchObject({
      error: "DEVICE_LIST_INVALID",
      message: expect.stringContaining("KT_KEY_MISMATCH"),
    });
    for (const home of ["ghost", "alice1", "alice2"]) {
      expect((await as(home, "listen", "--drain", "--json")).stdout).toEqual([]);
    }
  });
});
