import { describe, expect, it } from "vitest";
import { bytes, member, str } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";

describe("SvcClient messaging", () => {
  it("sends and receives both ways, the first message starting the session", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");
    await alice.send("bob:1", bytes("hello bob"));
    await alice.send("bob:1", bytes("again"));
    const got = await bob.receive();
    expect(got.map((m) => [m.from, str(m.plaintext)])).toEqual([
      ["alice:1", "hello bob"],
      ["alice:1", "again"],
    ]);
    await bob.send("alice:1", bytes("hi alice"));
    expect((await alice.receive()).map((m) => str(m.plaintext))).toEqual(["hi alice"]);
    expect(await bob.receive()).toEqual([]);
    expect(alice.errors).toEqual([]);
    expect(bob.errors).toEqual([]);
  });
});
