import { describe, expect, it } from "vitest";
import { envelope, InboxClient, msgIdOf, T0 } from "./inbox.js";
import { party } from "./party.js";
import { inProcess, send } from "./transport.js";

/** An app stand-in that echoes what it received. */
const echo = inProcess({
  async request(path, init) {
    const body = typeof init.body === "string" ? JSON.parse(init.body) : null;
    return Response.json({ path, method: init.method, body });
  },
});

describe("transports", () => {
  it("send: a prepared body goes as JSON on the given method and path", async () => {
    const res = await send(echo, { method: "POST", path: "/v1/x", body: '{"a":1}' });
    expect(await res.json()).toEqual({ path: "/v1/x", method: "POST", body: { a: 1 } });
  });

  it("send: no body, no content", async () => {
    const res = await send(echo, { method: "GET", path: "/v1/y" });
    expect(await res.json()).toEqual({ path: "/v1/y", method: "GET", body: null });
  });

  it("InboxClient signs a deposit at the pinned clock", async () => {
    const client = new InboxClient(echo);
    const sender = party("sender");
    const res = await client.deposit("a:1", sender, envelope(1));
    const { path, body } = (await res.json()) as { path: string; body: Record<string, unknown> };
    expect(path).toBe("/v1/inbox/a:1");
    expect(body).toMatchObject({
      msgId: msgIdOf(envelope(1)),
      senderPublicKey: sender.publicKey,
      signedAt: T0,
      expiresAt: T0 + 3_600_000,
    });
    expect(body.signature).toMatch(/^[A-Za-z0-9+/]{86}==$/);
  });
});
