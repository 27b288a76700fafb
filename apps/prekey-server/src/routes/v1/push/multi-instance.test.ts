import { openStorage } from "@svc/db";
import { createTestDatabase, hasTestPostgres, until } from "@svc/db/testing";
import { migrations } from "@svc/server-schema";
import { party } from "@svc/test-client";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer } from "../../../test-support/app.js";
import { addressOn, pushEndpointFor } from "./test-support/push-server.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two servers on one new PostgreSQL database, wake-ups allowed to the local endpoint. */
async function twoInstances() {
  const database = await createTestDatabase();
  cleanups.push(database.drop);
  const servers = [];
  for (let i = 0; i < 2; i++) {
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 10, migrations });
    cleanups.push(() => storage.close());
    const server = await startTestServer(
      { SVC_RATE_LIMIT: "off", SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on" },
      { storage },
    );
    cleanups.push(() => server.stop()); // before its storage closes
    servers.push(server);
  }
  return servers as [(typeof servers)[0], (typeof servers)[0]];
}

describe.skipIf(!hasTestPostgres())("two instances on one PostgreSQL", () => {
  it("send exactly one wake-up per subscription per deposit, whichever instance took it", async () => {
    const [a, b] = await twoInstances();
    const owner = party("multi-owner");
    const onA = addressOn(a, "alice@example.org:1", owner);
    const onB = addressOn(b, "alice@example.org:1", owner);
    await onA.register();
    const endpoint = await pushEndpointFor(a);
    const paths = ["/phone", "/browser"];
    for (const path of paths) {
      expect((await onB.subscribe(endpoint.subscription(path))).status).toBe(200);
    }
    const ROUNDS = 6;
    for (let round = 1; round <= ROUNDS; round++) {
      // Both instances take a deposit at the same time; each deposit's instance alone may wake.
      const [first, second] = await Promise.all([onA.deposit(), onB.deposit()]);
      expect([first.status, second.status]).toEqual([200, 200]);
      const settled = async () =>
        (await onA.wakeUps("sent")) +
          (await onB.wakeUps("sent")) +
          (await onA.wakeUps("coalesced")) +
          (await onB.wakeUps("coalesced")) ===
        round * 4;
      await until(settled);
      for (const path of paths) expect(endpoint.messages(path)).toHaveLength(round);
      // The fetch answers the wake-up: the next round's deposits may wake again.
      expect((await (round % 2 ? onA : onB).fetchInbox()).status).toBe(200);
    }
    for (const path of paths) {
      expect(endpoint.messages(path).every((m) => m.status === 201)).toBe(true);
    }
  });
});
