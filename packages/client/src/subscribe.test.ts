import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ClientError } from "./errors.js";
import type { ReceivedMessage } from "./inbound.js";
import { identityOf, parseState } from "./state.js";
import { type KeyStore, memoryStore } from "./store.js";
import { bytes, member, str, type TestClient } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";
import { delay, hookedFetch } from "./test-support/wire.js";
import type { TransportName } from "./transports/transport.js";
import type { WebSocketConstructor, WebSocketLike } from "./transports/websocket.js";

/** A WebSocket that never connects: it fails the way a blocked upgrade does. */
class FailingWebSocket implements WebSocketLike {
  readonly #listeners = new Map<string, Array<(event: never) => void>>();
  constructor(_url: string) {
    setTimeout(() => {
      for (const listener of this.#listeners.get("error") ?? []) listener(undefined as never);
      for (const listener of this.#listeners.get("close") ?? []) {
        listener({ code: 1006, reason: "" } as never);
      }
    }, 5);
  }
  addEventListener(type: string, listener: (event: never) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }
  close(): void {}
}

/** Everything a subscription hands over and every transport it connects with. */
function recorder() {
  const messages: string[] = [];
  const transports: TransportName[] = [];
  return {
    messages,
    transports,
    onMessage: (m: ReceivedMessage) => {
      messages.push(`${m.from} ${str(m.plaintext)}`);
    },
    onTransport: (t: TransportName) => {
      transports.push(t);
    },
  };
}

async function sendAll(from: TestClient, to: string, texts: string[]) {
  for (const text of texts) await from.send(to, bytes(text));
}

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await delay(20);
  }
}

const numbered = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

describe("SvcClient.subscribe", () => {
  it("drains what was queued first, then delivers live over WebSocket", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");
    await sendAll(alice, "bob:1", ["queued 1", "queued 2"]);
    const seen = recorder();
    const subscription = bob.subscribe(seen.onMessage, { onTransport: seen.onTransport });
    await until(() => seen.transports.length === 1);
    await sendAll(alice, "bob:1", ["live 1", "live 2"]);
    await until(() => seen.messages.length === 4);
    subscription.close();
    await subscription.closed;
    expect(seen.messages).toEqual(
      ["queued 1", "queued 2", "live 1", "live 2"].map((t) => `alice:1 ${t}`),
    );
    expect(seen.transports).toEqual(["ws"]);
    expect(bob.errors).toEqual([]);
  });

  it("falls back from a failing WebSocket to SSE, and from a failing SSE to long-poll", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const failing = FailingWebSocket as unknown as WebSocketConstructor;
    const bob = await member(server.url, "bob:1", { WebSocket: failing });
    const noStream = hookedFetch(async ({ url }, forward) => {
      if (url.pathname === "/v1/bridge/stream") throw new TypeError("connection refused");
      return forward();
    });
    const carol = await member(server.url, "carol:1", { WebSocket: failing, fetch: noStream });

    const bobSeen = recorder();
    const carolSeen = recorder();
    const subscriptions = [
      bob.subscribe(bobSeen.onMessage, { onTransport: bobSeen.onTransport }),
      carol.subscribe(carolSeen.onMessage, { onTransport: carolSeen.onTransport }),
    ];
    await until(() => bobSeen.transports.length === 1 && carolSeen.transports.length === 1);
    await sendAll(alice, "bob:1", numbered("to bob", 5));
    await sendAll(alice, "carol:1", numbered("to carol", 5));
    await until(() => bobSeen.messages.length === 5 && carolSeen.messages.length === 5);
    for (const s of subscriptions) s.close();
    await Promise.all(subscriptions.map((s) => s.closed));

    expect(bobSeen.transports).toEqual(["sse"]);
    expect(carolSeen.transports).toEqual(["poll"]);
    expect(bobSeen.messages).toEqual(numbered("alice:1 to bob", 5));
    expect(carolSeen.messages).toEqual(numbered("alice:1 to carol", 5));
    expect(bob.errors.map((e) => (e as Error).message)).toEqual(["the WebSocket bridge failed"]);
  });

  it("resumes by cursor after a forced WebSocket disconnect, without loss or duplicates", async () => {
    const server = await startTestServer();
    const sockets: WebSocket[] = [];
    class TrackedWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
      }
    }
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1", { WebSocket: TrackedWebSocket });
    const seen = recorder();
    const subscription = bob.subscribe(seen.onMessage, { onTransport: seen.onTransport });
    await until(() => seen.transports.length === 1);
    await sendAll(alice, "bob:1", numbered("before", 5));
    await until(() => seen.messages.length === 5);

    sockets[0]?.terminate();
    await sendAll(alice, "bob:1", numbered("during", 5));
    await until(() => seen.transports.length === 2);
    await sendAll(alice, "bob:1", numbered("after", 5));
    await until(() => seen.messages.length >= 15);
    await delay(200);
    subscription.close();
    await subscription.closed;

    expect(seen.transports).toEqual(["ws", "ws"]);
    expect(seen.messages).toEqual(
      [...numbered("before", 5), ...numbered("during", 5), ...numbered("after", 5)].map(
        (t) => `alice:1 ${t}`,
      ),
    );
    expect(bob.errors.map((e) => (e as Error).message)).toEqual([
      "the WebSocket bridge closed (1006)",
    ]);
  });

  it("resumes by cursor after an SSE stream is cut", async () => {
    const server = await startTestServer();
    const cuts: Array<() => void> = [];
    const cuttable = hookedFetch(async ({ url }, forward) => {
      const response = await forward();
      if (url.pathname !== "/v1/bridge/stream" || response.body === null) return response;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          cuts.push(() => {
            controller.error(new Error("cut"));
            void reader.cancel();
          });
        },
        async pull(controller) {
          const { value, done } = await reader
            .read()
            .catch(() => ({ value: undefined, done: true }));
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    });
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1", { fetch: cuttable });
    const seen = recorder();
    const subscription = bob.subscribe(seen.onMessage, {
      transports: ["sse"],
      onTransport: seen.onTransport,
    });
    await until(() => seen.transports.length === 1);
    await sendAll(alice, "bob:1", numbered("before", 3));
    await until(() => seen.messages.length === 3);
    cuts[0]?.();
    await sendAll(alice, "bob:1", numbered("during", 3));
    await until(() => seen.messages.length >= 6 && seen.transports.length === 2);
    await delay(200);
    subscription.close();
    await subscription.closed;
    expect(seen.transports).toEqual(["sse", "sse"]);
    expect(seen.messages).toEqual(
      [...numbered("before", 3), ...numbered("during", 3)].map((t) => `alice:1 ${t}`),
    );
  });

  it("does not ack a message whose handler throws: it is handed over again later", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");
    const seen = recorder();
    let failures = 0;
    const subscription = bob.subscribe(
      (m) => {
        if (str(m.plaintext) === "fragile" && failures++ === 0) throw new Error("handler failed");
        seen.onMessage(m);
      },
      { transports: ["poll"], onTransport: seen.onTransport },
    );
    await until(() => seen.transports.length === 1);
    await sendAll(alice, "bob:1", ["fragile", "sturdy"]);
    await until(() => seen.messages.length === 1);
    subscription.close();
    await subscription.closed;
    expect(seen.messages).toEqual(["alice:1 sturdy"]);
    expect(bob.errors.map((e) => (e as Error).message)).toEqual(["handler failed"]);

    // Not acked: handed over once more (from the store, not decrypted again), then acked.
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["fragile"]);
    expect(await bob.receive()).toEqual([]);
    expect(bob.errors).toHaveLength(1);
  });

  it("hands over a batch whose store change failed once it goes through, without a reconnect", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const inner = memoryStore();
    let failNext = 0;
    const store: KeyStore = {
      ...inner,
      transaction: (task) => {
        if (failNext > 0 && failNext--) {
          return Promise.reject(new ClientError("STORE_LOCKED", "held by another process"));
        }
        return inner.transaction?.(task) ?? task();
      },
    };
    const bob = await member(server.url, "bob:1", { store });
    const seen = recorder();
    const subscription = bob.subscribe(seen.onMessage, { onTransport: seen.onTransport });
    await until(() => seen.transports.length === 1);
    failNext = 3;
    await sendAll(alice, "bob:1", ["held up", "behind it"]);
    await until(() => seen.messages.length === 2);
    expect(seen.messages).toEqual(["alice:1 held up", "alice:1 behind it"]);
    expect(seen.transports).toEqual(["ws"]);
    expect(bob.errors.map((e) => (e as ClientError).code)).toEqual(["STORE_LOCKED"]);
    subscription.close();
    await subscription.closed;
    expect(await bob.receive()).toEqual([]);
  });

  it("closes promptly while a long-poll is held, and through an AbortSignal", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1");
    const seen = recorder();
    const controller = new AbortController();
    const subscription = bob.subscribe(seen.onMessage, {
      transports: ["poll"],
      onTransport: seen.onTransport,
      signal: controller.signal,
    });
    await until(() => seen.transports.length === 1);
    await delay(100);
    const started = Date.now();
    controller.abort();
    await subscription.closed;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(bob.errors).toEqual([]);
  });

  it("rides out a server away: one onDisconnect per outage, quiet retries, onTransport once back", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    let down = false;
    const sockets: WebSocket[] = [];
    // Away: every request refused and every WebSocket failing, as with the server stopped.
    class SwitchedWebSocket extends WebSocket {
      constructor(url: string) {
        super(down ? "ws://127.0.0.1:1/" : url);
        sockets.push(this);
      }
    }
    const switched = hookedFetch(async (_request, forward) => {
      if (down) throw new TypeError("fetch failed: connection refused");
      return forward();
    });
    const bob = await member(server.url, "bob:1", {
      WebSocket: SwitchedWebSocket,
      fetch: switched,
    });
    await sendAll(alice, "bob:1", ["queued"]);

    down = true;
    const seen = recorder();
    const disconnects: unknown[] = [];
    const subscription = bob.subscribe(seen.onMessage, {
      onTransport: seen.onTransport,
      onDisconnect: (error) => disconnects.push(error),
    });
    // The first drain fails, and again after each backoff (250, 500, 1000 ms): said once.
    await until(() => disconnects.length === 1);
    await delay(2000);
    expect(disconnects).toHaveLength(1);
    expect(disconnects[0]).toMatchObject({ code: "NETWORK" });
    down = false;
    await until(() => seen.transports.length === 1 && seen.messages.length === 1);

    down = true;
    for (const socket of sockets) socket.terminate();
    await until(() => disconnects.length === 2);
    await delay(1500);
    down = false;
    await until(() => seen.transports.length === 2);
    await sendAll(alice, "bob:1", ["after"]);
    await until(() => seen.messages.length === 2);
    subscription.close();
    await subscription.closed;
    expect(disconnects).toHaveLength(2);
    expect(seen.transports).toEqual(["ws", "ws"]);
    expect(seen.messages).toEqual(["alice:1 queued", "alice:1 after"]);
    // Connection failures went to onDisconnect, none to onError.
    expect(bob.errors).toEqual([]);
  });

  it("rejects `closed` when the server refuses the bridge (inbox unregistered)", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1");
    const key = identityOf(parseState(await bob.store.load()));
    await bob.api.inboxUnregister("bob:1", key.signingPrivateKey);
    const subscription = bob.subscribe(() => undefined, { transports: ["sse"] });
    await expect(subscription.closed).rejects.toMatchObject({ code: "SVC_WRONG_KEY", status: 401 });
  });
});
