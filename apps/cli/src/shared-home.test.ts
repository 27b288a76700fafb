import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ReceivedMessage, SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import { built, spawnSvc } from "./test-support/processes.js";
import { type Closer, startTestServer, svc, tempDir } from "./test-support/server.js";

beforeAll(async () => (await createTestStorage({ migrations })).close());

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const MESSAGES = 200;
const numbered = (prefix: string) => Array.from({ length: MESSAGES }, (_, i) => `${prefix} ${i}`);
const text = new TextDecoder();

/** A client on `home`'s key store, beside any other user of it; what it reported is in `errors`. */
async function clientOn(url: string, home: string, errors: unknown[]): Promise<SvcClient> {
  const client = await SvcClient.open({
    server: url,
    store: fileStore(home),
    ...nodeClientOptions(),
    onError: (error) => errors.push(error),
  });
  closers.push(() => client.close());
  return client;
}

async function sendAll(client: SvcClient, to: string, texts: string[], sent: { count: number }) {
  for (const message of texts) {
    await client.send(to, new TextEncoder().encode(message));
    sent.count++;
  }
}

describe.skipIf(!built)("send and listen from the same home at once", () => {
  for (const order of ["listen first", "send first"] as const) {
    it(`${MESSAGES} messages each way, none lost, none twice (${order})`, async () => {
      const { url } = await startTestServer(closers);
      const homes = await tempDir(closers, "svc-shared-home-");
      const [aliceHome, bobHome] = [join(homes, "alice"), join(homes, "bob")];
      expect((await svc(url, aliceHome, ["init", "--address", "alice:1"])).code).toBe(EXIT.ok);
      expect((await svc(url, bobHome, ["init", "--address", "bob:1"])).code).toBe(EXIT.ok);

      // alice: a real `svc listen` process and a client in this process, on one home; bob: two
      // clients in this process, each with its own file store on one home.
      const errors: unknown[] = [];
      const aliceSender = await clientOn(url, aliceHome, errors);
      const bobSender = await clientOn(url, bobHome, errors);
      const bobListener = await clientOn(url, bobHome, errors);
      const bobGot: string[] = [];
      let bobConnected = false;
      let aliceListen: ReturnType<typeof spawnSvc> | undefined;
      const startListening = () => {
        aliceListen = spawnSvc(closers, ["listen"], { SVC_SERVER: url, SVC_HOME: aliceHome });
        bobListener.subscribe(
          (message: ReceivedMessage) => {
            bobGot.push(`${message.from}: ${text.decode(message.plaintext)}`);
          },
          {
            onTransport: () => {
              bobConnected = true;
            },
          },
        );
      };
      const aliceOut = () => aliceListen?.out ?? { stdout: "", stderr: "" };
      const listening = () => bobConnected && aliceOut().stderr.includes("svc: listening as");

      const sent = { alice: { count: 0 }, bob: { count: 0 } };
      if (order === "listen first") {
        startListening();
        await until(listening, 30_000);
      }
      const sending = Promise.all([
        sendAll(aliceSender, "bob:1", numbered("from alice"), sent.alice),
        sendAll(bobSender, "alice:1", numbered("from bob"), sent.bob),
      ]);
      if (order === "send first") {
        await until(() => sent.alice.count >= 20 && sent.bob.count >= 20, 60_000);
        startListening();
      }
      await sending;
      const aliceLines = () => aliceOut().stdout.split("\n").filter(Boolean);
      await until(
        () => aliceLines().length >= MESSAGES && bobGot.length >= MESSAGES,
        120_000,
      ).catch((error: Error) => {
        const missing = (got: string[], want: string[]) => want.filter((m) => !got.includes(m));
        throw new Error(
          `${error.message}: alice got ${aliceLines().length}, bob got ${bobGot.length}; ` +
            `alice lacks ${missing(aliceLines(), numbered("bob:1: from bob")).join(", ")}; ` +
            `bob lacks ${missing(bobGot, numbered("alice:1: from alice")).join(", ")}; ` +
            `errors ${errors.map(String).join("; ")}; alice stderr ${aliceOut().stderr}`,
        );
      });
      // Anything handed over twice would come within this while.
      await new Promise((resolve) => setTimeout(resolve, 500));
      aliceListen?.child.kill("SIGTERM");
      expect(await aliceListen?.exited).toBe(EXIT.ok);

      expect(aliceLines()).toEqual(numbered("bob:1: from bob"));
      expect(bobGot).toEqual(numbered("alice:1: from alice"));
      // A message decrypted twice fails as a replay, which is reported: nothing was.
      expect(errors).toEqual([]);
      expect(aliceOut().stderr).toMatch(/^svc: listening as alice:1 \((ws|sse|poll) bridge\)\n$/);
      for (const home of [aliceHome, bobHome]) {
        const state = JSON.parse(await readFile(join(home, "state.json"), "utf8"));
        expect(Object.keys(state.unacked)).toEqual([]);
        expect(state.recentlyAcked).toHaveLength(MESSAGES);
      }
    }, 240_000);
  }
});
