import { portableEd25519 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { ClientError } from "./errors.js";
import { bytes, member, str } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";

describe("SvcClient outside the inbox (seal, open, peerIdentity, sign)", () => {
  it("opens what the peer sealed exactly once, in either direction, and sessions go on in the inbox", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");

    const first = await alice.seal("bob:1", bytes("start"));
    expect(str(await bob.open("alice:1", first))).toBe("start");
    await expect(bob.open("alice:1", first)).rejects.toMatchObject({ code: "DECRYPT_FAILED" });

    const reply = await bob.seal("alice:1", bytes("ok"));
    expect(str(await alice.open("bob:1", reply))).toBe("ok");
    await alice.send("bob:1", bytes("by inbox"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["by inbox"]);
  });

  it("refuses a first message under another sender's address, and a tampered envelope", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");
    await member(server.url, "carol:1");

    const sealed = await alice.seal("bob:1", bytes("hi"));
    await expect(bob.open("carol:1", sealed)).rejects.toMatchObject({ code: "SENDER_MISMATCH" });
    const tampered = sealed.slice();
    tampered[tampered.length - 1] = (tampered.at(-1) ?? 0) ^ 1;
    const error = await bob.open("alice:1", tampered).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe("DECRYPT_FAILED");
    expect(str(await bob.open("alice:1", sealed))).toBe("hi");
  });

  it("fetches a peer's identity once: later lookups cost no one-time prekey", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");
    const before = (await bob.keysStatus()).oneTimePreKeysOnServer;
    const keys = await alice.peerIdentity("bob:1");
    for (let i = 0; i < 5; i++) expect(await alice.peerIdentity("bob:1")).toEqual(keys);
    expect((await bob.keysStatus()).oneTimePreKeysOnServer).toBe(before - 1);

    const message = bytes("chunk\0addr=alice:1\0");
    const signature = await alice.sign(message);
    const aliceKeys = await bob.peerIdentity("alice:1");
    expect(portableEd25519.verify(signature, message, aliceKeys.identitySigningKey)).toBe(true);
  });
});
