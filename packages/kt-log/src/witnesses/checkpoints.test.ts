import { createTestStorage } from "@svc/db/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ktCosignatures, ktLogMigrations } from "../schema.js";
import { createSthSigner } from "../signer.js";
import { key32 } from "../test-support/keys.js";
import { Checkpoints } from "./checkpoints.js";

const migrations = [ktLogMigrations];
beforeAll(async () => (await createTestStorage({ migrations })).close());

const origin = "example.org/svc-kt";
const signer = createSthSigner(key32(42));
const sth = signer.sign({
  treeSize: 7,
  timestampMs: 1000,
  rootHash: key32(1),
  indexRoot: key32(2),
});
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** Checkpoints on a fresh database, with a clock the test moves. */
async function setup() {
  const storage = await createTestStorage({ migrations });
  closing.push(() => storage.close());
  const clock = { now: 0 };
  const checkpoints = new Checkpoints({
    db: storage.db,
    origin,
    signer: signer.noteSigner(origin),
    now: () => clock.now,
  });
  const cosign = (witness: string) =>
    storage.db
      .insert(ktCosignatures)
      .values({ witness, treeSize: sth.treeSize, line: `— ${witness} sig\n`, cosignedAt: 1 });
  return { checkpoints, clock, cosign };
}

describe("Checkpoints", () => {
  it("keeps a size's cosigned note for a second, then reads it again", async () => {
    const { checkpoints, clock, cosign } = await setup();
    const bare = await checkpoints.cosigned(sth);
    expect(bare).toBe(checkpoints.signed(sth));
    await cosign("w1");
    clock.now = 999;
    expect(await checkpoints.cosigned(sth)).toBe(bare);
    clock.now = 1000;
    expect(await checkpoints.cosigned(sth)).toBe(`${bare}— w1 sig\n`);
  });

  it("rereads a note beside the requests, which keep the old one until the new is read", async () => {
    const { checkpoints, clock, cosign } = await setup();
    const bare = await checkpoints.cosigned(sth);
    await cosign("w1");
    clock.now = 600;
    const rereading = checkpoints.reread(sth);
    expect(await checkpoints.cosigned(sth)).toBe(bare);
    await rereading;
    // Read at 600: kept until 1600 without another read.
    await cosign("w2");
    clock.now = 1599;
    expect(await checkpoints.cosigned(sth)).toBe(`${bare}— w1 sig\n`);
  });

  it("drops a reread that an invalidation overtook", async () => {
    const { checkpoints, clock, cosign } = await setup();
    const bare = await checkpoints.cosigned(sth);
    const rereading = checkpoints.reread(sth);
    checkpoints.invalidate();
    await rereading;
    await cosign("w1");
    clock.now = 10;
    expect(await checkpoints.cosigned(sth)).toBe(`${bare}— w1 sig\n`);
  });
});
