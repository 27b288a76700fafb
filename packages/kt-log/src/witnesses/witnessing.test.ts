import type { Storage } from "@svc/db";
import { createTestStorage } from "@svc/db/testing";
import { checkpointText, defaultOrigin } from "@svc/kt-verify";
import { MemoryWitnessState, Witness, witnessRoutes } from "@svc/kt-witness";
import {
  ED25519_TYPE,
  formatSignerKey,
  formatVerifierKey,
  openNote,
  parseSignerKey,
  parseVerifierKey,
} from "@svc/signed-note";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { KtLog, type KtLogOptions } from "../kt-log.js";
import { ktLogMigrations } from "../schema.js";
import { createSthSigner } from "../signer.js";
import { identityChange, key32, vrfSecretKey } from "../test-support/keys.js";
import type { WitnessEvent } from "./witnessing.js";

const migrations = [ktLogMigrations];
beforeAll(async () => (await createTestStorage({ migrations })).close());

const signer = createSthSigner(key32(42));
const origin = "example.org/svc-kt";
const logVerifier = parseVerifierKey(formatVerifierKey(origin, signer.publicKey, ED25519_TYPE));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function storage(): Promise<Storage> {
  const created = await createTestStorage({ migrations });
  cleanups.push(() => created.close());
  return created;
}

/** A witness of the test log, reached in-process; `down` makes it unreachable. */
function startWitness(name: string, n: number) {
  const state = new MemoryWitnessState();
  const witness = new Witness({
    signer: parseSignerKey(formatSignerKey(name, key32(n))),
    logs: [logVerifier],
    state,
  });
  const app = witnessRoutes(witness);
  const control = { down: false, state };
  const fetcher = async (input: string | URL | Request, init?: RequestInit) => {
    if (control.down) throw new TypeError("fetch failed");
    return app.request(new Request(input, init));
  };
  return {
    name,
    url: `http://${name}.test`,
    verifier: parseVerifierKey(witness.verifierKey()),
    fetcher,
    control,
  };
}

type TestWitness = ReturnType<typeof startWitness>;

/** A log whose fetch routes each witness URL to that witness. */
async function openLog(
  db: Storage,
  witnesses: TestWitness[],
  events: WitnessEvent[] = [],
  extra: Partial<KtLogOptions> = {},
) {
  const fetcher: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const witness = witnesses.find((w) => url.startsWith(w.url));
    if (witness === undefined) throw new TypeError(`no witness at ${url}`);
    return witness.fetcher(input, init);
  };
  return KtLog.open({
    vrfSecretKey,
    storage: db,
    signer,
    origin,
    witnesses: witnesses.map(({ verifier, url }) => ({ verifier, url })),
    onWitness: (event) => events.push(event),
    fetch: fetcher,
    ...extra,
  });
}

function cosigners(note: string, witnesses: TestWitness[]): string[] {
  const opened = openNote(note, [logVerifier, ...witnesses.map((w) => w.verifier)]);
  return opened.signatures.filter((s) => s.key !== logVerifier).map((s) => s.name);
}

describe("KtLog checkpoints", () => {
  it("signs each tree head as a checkpoint under the origin, by default one named after the logId", async () => {
    const db = await storage();
    const log = await KtLog.open({ vrfSecretKey, storage: db, signer });
    const { sth } = await log.append(identityChange("alice", 1));
    expect(log.origin).toBe(defaultOrigin(signer.logId));
    const note = await log.checkpointFor(sth);
    const verifier = parseVerifierKey(
      formatVerifierKey(log.origin, signer.publicKey, ED25519_TYPE),
    );
    const opened = openNote(note, [verifier]);
    expect(opened.text).toBe(checkpointText(log.origin, sth));
    expect(opened.text).toMatch(/\n1\n[A-Za-z0-9+/]{43}=\nindexRoot [A-Za-z0-9+/]{43}=\n$/);
  });

  it("refuses an origin that is not a note key name", async () => {
    const db = await storage();
    await expect(
      KtLog.open({ vrfSecretKey, storage: db, signer, origin: "with space" }),
    ).rejects.toThrow(RangeError);
    await expect(KtLog.open({ vrfSecretKey, storage: db, signer, origin: "a+b" })).rejects.toThrow(
      RangeError,
    );
  });
});

describe("KtLog witnessing", () => {
  it("has each new tree head cosigned by every live witness before its appends resolve", async () => {
    const db = await storage();
    const witnesses = [
      startWitness("w1.test", 1),
      startWitness("w2.test", 2),
      startWitness("w3.test", 3),
    ];
    (witnesses[2] as TestWitness).control.down = true;
    const events: WitnessEvent[] = [];
    const log = await openLog(db, witnesses, events);
    const appended = await Promise.all(
      ["alice", "bob", "carol"].map((a, i) => log.append(identityChange(a, i * 2))),
    );
    const latest = await log.latestSth();
    expect(latest.treeSize).toBe(3);
    expect(appended.map((a) => a.sth.treeSize).sort()).toEqual([1, 2, 3]);
    expect(cosigners(await log.checkpointFor(latest), witnesses).sort()).toEqual([
      "w1.test",
      "w2.test",
    ]);
    expect(await (witnesses[0] as TestWitness).control.state.read(origin)).toEqual({
      size: 3,
      rootHash: latest.rootHash,
    });
    expect(events.some((e) => e.witness === "w3.test" && e.outcome === "unreachable")).toBe(true);

    // Back up, the third witness gets the latest checkpoint from the catch-up.
    (witnesses[2] as TestWitness).control.down = false;
    await log.witnessLatest(60 * 60_000);
    expect(cosigners(await log.checkpointFor(latest), witnesses).sort()).toEqual([
      "w1.test",
      "w2.test",
      "w3.test",
    ]);
  });

  it("sends a witness that knows the log a consistency proof from the size it holds, after a restart", async () => {
    const db = await storage();
    const witness = startWitness("w1.test", 1);
    const first = await openLog(db, [witness]);
    await first.append(identityChange("alice", 1));
    await first.append(identityChange("bob", 3));
    const events: WitnessEvent[] = [];
    const reopened = await openLog(db, [witness], events);
    const { sth } = await reopened.append(identityChange("carol", 5));
    expect(cosigners(await reopened.checkpointFor(sth), [witness])).toEqual(["w1.test"]);
    expect(events.map((e) => e.outcome)).toEqual(["cosigned"]);
    expect((await witness.control.state.read(origin))?.size).toBe(3);
  });

  it("catches up a witness that missed checkpoints and leaves the cosigned ones alone", async () => {
    const db = await storage();
    const witness = startWitness("w1.test", 1);
    witness.control.down = true;
    const events: WitnessEvent[] = [];
    const log = await openLog(db, [witness], events);
    await log.append(identityChange("alice", 1));
    witness.control.down = false;
    await log.witnessLatest(60 * 60_000);
    expect((await witness.control.state.read(origin))?.size).toBe(1);
    const count = events.length;
    await log.witnessLatest(60 * 60_000);
    expect(events.length).toBe(count);
  });

  it("is refused by a witness when the same key signs a split view (another tree)", async () => {
    const witness = startWitness("w1.test", 1);
    const honest = await openLog(await storage(), [witness]);
    await honest.append(identityChange("alice", 1));
    await honest.append(identityChange("bob", 3));
    const events: WitnessEvent[] = [];
    // Same operator key and origin, another database: another tree of the same sizes.
    const forked = await openLog(await storage(), [witness], events);
    const { sth: forkedAt1 } = await forked.append(identityChange("mallory", 7));
    const { sth: forkedAt2 } = await forked.append(identityChange("eve", 9));
    expect(forkedAt2.rootHash).not.toEqual((await honest.latestSth()).rootHash);
    expect(events.map((e) => e.outcome)).not.toContain("cosigned");
    expect(cosigners(await forked.checkpointFor(forkedAt2), [witness])).toEqual([]);
    expect(forkedAt1.treeSize).toBe(1);
    expect((await witness.control.state.read(origin))?.rootHash).toEqual(
      (await honest.latestSth()).rootHash,
    );
  });
});
