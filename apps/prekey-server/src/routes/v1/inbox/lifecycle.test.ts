import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envelope, InboxClient, inProcess, msgIdOf, party, T0 } from "@svc/test-client";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../../app.js";
import { createTestApp, testConfig } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const sender = party("sender");

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("inbox lifecycle", { timeout: 60_000 }, () => {
  it("prunes expired blobs on its interval, with metrics and an inbox.pruned event", async () => {
    const clock = { now: T0 };
    const svc = await createTestApp(
      { SVC_INBOX_PRUNE_INTERVAL_MS: "100" },
      { now: () => clock.now },
    );
    const client = new InboxClient(
      (path, init) => svc.app.request(path, init),
      () => clock.now,
    );
    const pruned: number[] = [];
    svc.services.events.on("inbox.pruned", ({ blobs }) => pruned.push(blobs));
    await client.register(ALICE, alice);
    for (let n = 0; n < 3; n++) await client.deposit(ALICE, sender, envelope(n), { expiresAt: 0 });
    await client.deposit(ALICE, sender, envelope(9));
    clock.now = T0 + 60_000;

    await expect.poll(() => pruned.reduce((a, b) => a + b, 0), { timeout: 5000 }).toBe(3);
    const metrics = await (await svc.app.request("/metrics")).text();
    expect(metrics).toContain("svc_inbox_blobs_pruned_total 3");
    expect(metrics).toMatch(/svc_inbox_prune_cycles_total [1-9]/);
    const res = await client.fetch(ALICE, alice);
    const page = (await expectContract(res, "POST", `/v1/inbox/${ALICE}/fetch`)) as {
      items: Array<{ msgId: string }>;
    };
    expect(page.items.map((item) => item.msgId)).toEqual([msgIdOf(envelope(9))]);
  });

  it("keeps queued blobs and cursors across a restart on the same data directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-inbox-"));
    dirs.push(dir);
    const config = testConfig({ SVC_DATA_DIR: dir });
    const first = await createApp({ ...config, databaseUrl: undefined }, { now: () => T0 });
    const client1 = new InboxClient(inProcess(first.app));
    await client1.register(ALICE, alice);
    await client1.deposit(ALICE, sender, envelope(1));
    await client1.deposit(ALICE, sender, envelope(2));
    const before = (await (await client1.fetch(ALICE, alice, { limit: 1 })).json()) as {
      nextCursor: string;
    };
    await first.close();

    const second = await createApp({ ...config, databaseUrl: undefined }, { now: () => T0 });
    try {
      const client2 = new InboxClient(inProcess(second.app));
      const res = await client2.fetch(ALICE, alice, { cursor: before.nextCursor });
      const page = (await expectContract(res, "POST", `/v1/inbox/${ALICE}/fetch`)) as {
        items: Array<{ msgId: string }>;
      };
      expect(page.items.map((item) => item.msgId)).toEqual([msgIdOf(envelope(2))]);
    } finally {
      await second.close();
    }
  });

  it("reports the inbox store in /ready", async () => {
    const svc = await createTestApp();
    const res = await svc.app.request("/ready");
    expect(await expectContract(res, "GET", "/ready")).toMatchObject({
      checks: { inbox: "ok" },
    });
  });

  it("answers every inbox route with 404 SVC_FEATURE_DISABLED when SVC_INBOX=off", async () => {
    const svc = await createTestApp({ SVC_INBOX: "off" }, { now: () => T0 });
    const client = new InboxClient(inProcess(svc.app));
    const msgId = msgIdOf(envelope(1));
    const calls: Array<[Promise<Response>, string, string]> = [
      [client.register(ALICE, alice), "POST", "/v1/inbox/register"],
      [client.unregister(ALICE, alice), "DELETE", `/v1/inbox/register/${ALICE}`],
      [client.deposit(ALICE, sender, envelope(1)), "POST", `/v1/inbox/${ALICE}`],
      [client.fetch(ALICE, alice), "POST", `/v1/inbox/${ALICE}/fetch`],
      [client.ack(ALICE, alice, msgId), "DELETE", `/v1/inbox/${ALICE}/${msgId}`],
    ];
    for (const [call, method, path] of calls) {
      const res = await call;
      expect(res.status).toBe(404);
      expect(await expectContract(res, method, path)).toMatchObject({
        code: "SVC_FEATURE_DISABLED",
      });
    }
    const ready = await svc.app.request("/ready");
    expect(await ready.json()).toMatchObject({ checks: { inbox: "disabled" } });
  });
});
