import { describe, expect, it } from "vitest";
import { member } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";

/** A user agent's P-256 key and authentication secret: RFC 8291's example. */
const KEYS = {
  p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
  auth: "BTBZMqHH6r4Tts7J_aSIgg",
};

const subscription = (endpoint: string) => ({ endpoint, expirationTime: null, keys: KEYS });

/** subscribePush, unsubscribePush and pushVapidKey against the prekey server's push routes. */
describe("SvcClient push against the server", () => {
  it("subscribes, renews, and unsubscribes once (removed true, then false)", async () => {
    const server = await startTestServer({ SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on" });
    const alice = await member(server.url, "alice:1");
    expect(await alice.pushVapidKey()).toMatch(/^[A-Za-z0-9_-]{87}$/);
    const endpoint = "http://127.0.0.1:9/push/alice";
    await alice.subscribePush(subscription(endpoint));
    // The same endpoint again renews its keys: not a second subscription.
    await alice.subscribePush({ endpoint, keys: KEYS });
    expect(await alice.unsubscribePush(endpoint)).toEqual({ removed: true });
    expect(await alice.unsubscribePush(endpoint)).toEqual({ removed: false });
  });

  it("gets the server's codes: refused endpoints, bad keys, too many, push off", async () => {
    const strict = await startTestServer();
    const alice = await member(strict.url, "alice:1");
    for (const endpoint of [
      "http://push.example.net/x",
      "https://127.0.0.1/x",
      "https://10.1.2.3/x",
    ]) {
      await expect(alice.subscribePush(subscription(endpoint)), endpoint).rejects.toMatchObject({
        name: "SvcError",
        code: "SVC_PUSH_ENDPOINT_REFUSED",
        status: 400,
      });
    }
    const open = await startTestServer({ SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on" });
    const bob = await member(open.url, "bob:1");
    await expect(
      bob.subscribePush({ endpoint: "http://127.0.0.1:9/b", keys: { ...KEYS, auth: "AAAA" } }),
    ).rejects.toMatchObject({ code: "SVC_INVALID_PUSH_SUBSCRIPTION", status: 400 });
    for (let n = 0; n < 8; n++) await bob.subscribePush(subscription(`http://127.0.0.1:9/b${n}`));
    await expect(bob.subscribePush(subscription("http://127.0.0.1:9/b9"))).rejects.toMatchObject({
      code: "SVC_TOO_MANY_SUBSCRIPTIONS",
      status: 409,
    });
    const off = await startTestServer({ SVC_PUSH: "off" });
    const carol = await member(off.url, "carol:1");
    await expect(carol.pushVapidKey()).rejects.toMatchObject({
      code: "SVC_FEATURE_DISABLED",
      status: 404,
    });
    await expect(
      carol.subscribePush(subscription("https://push.example.net/c")),
    ).rejects.toMatchObject({
      code: "SVC_FEATURE_DISABLED",
    });
  });
});
