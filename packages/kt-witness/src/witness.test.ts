import {
  COSIGNATURE_V1_TYPE,
  formatVerifierKey,
  openNote,
  parseVerifierKey,
  signNote,
} from "@svc/signed-note";
import { describe, expect, it } from "vitest";
import { formatAddCheckpoint } from "./add-checkpoint.js";
import { type CosignedTree, MemoryWitnessState, type WitnessState } from "./state.js";
import { testLog, testSigner } from "./test-support/log.js";
import { Witness, type WitnessAnswer } from "./witness.js";

const NOW_MS = 1_700_000_000_999;
const witnessSigner = testSigner("witness.example/w1", 9);

function setup(logs = [testLog()], state: WitnessState = new MemoryWitnessState()) {
  const witness = new Witness({
    signer: witnessSigner,
    logs: logs.map((log) => log.verifier),
    state,
    now: () => NOW_MS,
  });
  return { witness, state, log: logs[0] as ReturnType<typeof testLog> };
}

/** The checkpoint with the witness's lines appended, opened with the witness's key only. */
function cosignedBy(witness: Witness, checkpoint: string, answer: WitnessAnswer) {
  expect(answer.status).toBe(200);
  const lines = (answer as { lines: string }).lines;
  return openNote(checkpoint + lines, [parseVerifierKey(witness.verifierKey())]);
}

describe("Witness", () => {
  it("cosigns a first checkpoint from old size 0, with a cosignature/v1 of its checkpoint text", async () => {
    const { witness, state, log } = setup();
    const answer = await witness.add(log.body(0, 5));
    expect(answer).toMatchObject({ status: 200, origin: log.origin, size: 5 });
    const opened = cosignedBy(witness, log.checkpoint(5), answer);
    expect(opened.text).toBe(log.checkpointText(5));
    expect(opened.signatures).toEqual([
      expect.objectContaining({ name: "witness.example/w1", timestamp: 1_700_000_000n }),
    ]);
    expect(await state.read(log.origin)).toEqual({ size: 5, rootHash: log.tree.root(5) });
  });

  it("has the verifier key of its cosignatures (type 0x04, named after its signer)", () => {
    const { witness } = setup();
    expect(witness.verifierKey()).toBe(
      formatVerifierKey("witness.example/w1", witnessSigner.publicKey, COSIGNATURE_V1_TYPE),
    );
    expect(parseVerifierKey(witness.verifierKey()).type).toBe(COSIGNATURE_V1_TYPE);
  });

  it("follows the log: each new checkpoint with the proof from the last cosigned size", async () => {
    const { witness, state, log } = setup();
    let old = 0;
    for (const size of [1, 2, 3, 4, 7, 8, 16, 17, 31, 40]) {
      const answer = await witness.add(log.body(old, size));
      cosignedBy(witness, log.checkpoint(size), answer);
      old = size;
    }
    // The same checkpoint again is cosigned again.
    expect((await witness.add(log.body(40, 40))).status).toBe(200);
    expect((await state.read(log.origin))?.size).toBe(40);
  });

  it("answers 404 for an unknown origin, whatever signs it", async () => {
    const { witness } = setup();
    const other = testLog({ origin: "other.example/log" });
    expect(await witness.add(other.body(0, 3))).toMatchObject({
      status: 404,
      message: expect.stringMatching(/unknown log origin "other.example\/log"/),
    });
  });

  it("answers 403 when no trusted key signed, ignoring signatures by unknown keys", async () => {
    const { witness, log } = setup();
    const impostor = testSigner(log.origin, 2);
    const stranger = testSigner("stranger.example", 3);
    const unsigned = signNote(log.checkpointText(3), [impostor, stranger]);
    const body = formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: unsigned });
    expect(await witness.add(body)).toMatchObject({ status: 403, origin: log.origin });
    // With the log's own signature among them, the unknown ones are ignored.
    const signed = signNote(log.checkpointText(3), [stranger, log.signer, impostor]);
    const good = formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: signed });
    expect((await witness.add(good)).status).toBe(200);
  });

  it("answers 403 for a log signature that does not verify", async () => {
    const { witness, state, log } = setup();
    const note = log.checkpoint(3);
    const at = note.lastIndexOf(" ") + 10;
    const flipped = note.slice(0, at) + (note[at] === "A" ? "B" : "A") + note.slice(at + 1);
    const body = formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: flipped });
    expect((await witness.add(body)).status).toBe(403);
    // Signed text that differs from the checkpoint sent: the same.
    const forged = note.replace("\n3\n", "\n4\n");
    const other = formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: forged });
    expect((await witness.add(other)).status).toBe(403);
    expect(await state.read(log.origin)).toBeUndefined();
  });

  it("accepts any of the origin's keys (a key rotation)", async () => {
    const old = testLog({ keyFill: 1 });
    const rotated = testLog({ keyFill: 5 });
    const { witness } = setup([old, rotated]);
    expect((await witness.add(old.body(0, 3))).status).toBe(200);
    expect((await witness.add(rotated.body(3, 6))).status).toBe(200);
  });

  it("answers 400 for a malformed body, a note that is not a checkpoint, or old size > size", async () => {
    const { witness, state, log } = setup();
    for (const body of ["", "old 0\n", `old 00\n\n${log.checkpoint(3)}`, "\u00ff"]) {
      expect((await witness.add(body)).status).toBe(400);
    }
    const notCheckpoint = signNote(`${log.origin}\nthree\nroot\n`, [log.signer]);
    const notNote = `${log.checkpointText(3)}\n`;
    for (const checkpoint of [notCheckpoint, notNote]) {
      const body = formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint });
      expect(await witness.add(body)).toMatchObject({ status: 400, origin: log.origin });
    }
    const huge = signNote(`${log.origin}\n${2 ** 53}\n${Buffer.alloc(32).toString("base64")}\n`, [
      log.signer,
    ]);
    expect(
      await witness.add(formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: huge })),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/2\^53/) });
    await witness.add(log.body(0, 5));
    expect(
      await witness.add(
        formatAddCheckpoint({ oldSize: 5, proof: [], checkpoint: log.checkpoint(3) }),
      ),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/old size 5 exceeds/) });
    expect((await state.read(log.origin))?.size).toBe(5);
  });

  it("answers 409 with the latest cosigned size when the old size is not it", async () => {
    const { witness, log } = setup();
    expect(await witness.add(log.body(3, 5))).toMatchObject({ status: 409, size: 0 });
    await witness.add(log.body(0, 5));
    expect(await witness.add(log.body(0, 8))).toMatchObject({ status: 409, size: 5 });
    expect(await witness.add(log.body(4, 8))).toMatchObject({ status: 409, size: 5 });
    expect(await witness.add(log.body(6, 8))).toMatchObject({ status: 409, size: 5 });
  });

  it("refuses a rollback: a smaller checkpoint after a larger one", async () => {
    const { witness, state, log } = setup();
    await witness.add(log.body(0, 10));
    // The log pretends the witness is at 4, or at 0: it is at 10.
    expect(await witness.add(log.body(4, 6))).toMatchObject({ status: 409, size: 10 });
    expect(await witness.add(log.body(0, 6))).toMatchObject({ status: 409, size: 10 });
    expect((await witness.add(log.body(10, 10))).status).toBe(200);
    expect((await state.read(log.origin))?.size).toBe(10);
  });

  it("answers 422 for a consistency proof that does not verify", async () => {
    const { witness, state, log } = setup();
    await witness.add(log.body(0, 6));
    const proof = log.proof(6, 13);
    const flipped = proof.map((hash, i) =>
      i === 1 ? hash.map((b, j) => (j === 0 ? b ^ 1 : b)) : hash,
    );
    const checkpoint = log.checkpoint(13);
    for (const bad of [
      flipped,
      proof.slice(1),
      [...proof, proof[0] as Uint8Array],
      [],
      log.proof(5, 13),
    ]) {
      const body = formatAddCheckpoint({ oldSize: 6, proof: bad, checkpoint });
      expect(await witness.add(body)).toMatchObject({ status: 422, origin: log.origin });
    }
    // A proof where none is due: from size 0, and between equal sizes.
    const fromZero = formatAddCheckpoint({
      oldSize: 0,
      proof: proof,
      checkpoint: log.checkpoint(3),
    });
    expect((await setup().witness.add(fromZero)).status).toBe(422);
    const same = formatAddCheckpoint({ oldSize: 6, proof, checkpoint: log.checkpoint(6) });
    expect((await witness.add(same)).status).toBe(422);
    expect(await state.read(log.origin)).toEqual({ size: 6, rootHash: log.tree.root(6) });
  });

  it("answers 409 for another root at the cosigned size", async () => {
    const { witness, log } = setup();
    const fork = testLog({ variant: "forged" });
    await witness.add(log.body(0, 7));
    const body = formatAddCheckpoint({ oldSize: 7, proof: [], checkpoint: fork.checkpoint(7) });
    expect(await witness.add(body)).toMatchObject({ status: 409, size: 7 });
  });

  it("refuses a split view: a second tree of the same origin, signed by the log, after the first", async () => {
    const honest = testLog();
    const split = testLog({ variant: "other" });
    const { witness, state } = setup([honest]);
    expect((await witness.add(honest.body(0, 8))).status).toBe(200);
    // The other tree's own proof from 8 to 12 does not lead from the cosigned root.
    expect((await witness.add(split.body(8, 12))).status).toBe(422);
    expect((await witness.add(split.body(0, 12))).status).toBe(409);
    const same = formatAddCheckpoint({ oldSize: 8, proof: [], checkpoint: split.checkpoint(8) });
    expect((await witness.add(same)).status).toBe(409);
    expect(await state.read(honest.origin)).toEqual({ size: 8, rootHash: honest.tree.root(8) });
    expect((await witness.add(honest.body(8, 12))).status).toBe(200);
  });

  it("takes any root at first contact with size 0, then holds to it", async () => {
    const { witness, state, log } = setup();
    const zero = (root: number) =>
      formatAddCheckpoint({
        oldSize: 0,
        proof: [],
        checkpoint: signNote(`${log.origin}\n0\n${Buffer.alloc(32, root).toString("base64")}\n`, [
          log.signer,
        ]),
      });
    expect((await witness.add(zero(1))).status).toBe(200);
    expect(await state.read(log.origin)).toEqual({ size: 0, rootHash: new Uint8Array(32).fill(1) });
    expect(await witness.add(zero(2))).toMatchObject({ status: 409, size: 0 });
    expect((await witness.add(zero(1))).status).toBe(200);
    expect((await witness.add(log.body(0, 4))).status).toBe(200);
  });

  it("keeps each origin's state apart", async () => {
    const a = testLog({ origin: "a.example/log" });
    const b = testLog({ origin: "b.example/log", keyFill: 2 });
    const { witness, state } = setup([a, b]);
    await witness.add(a.body(0, 9));
    expect((await witness.add(b.body(0, 2))).status).toBe(200);
    expect((await state.read(a.origin))?.size).toBe(9);
    expect((await state.read(b.origin))?.size).toBe(2);
  });

  it("never moves the state back under concurrent requests, and every 200 extends the last", async () => {
    const log = testLog({ leaves: 64 });
    const written: number[] = [];
    const inner = new MemoryWitnessState();
    // A slow store, so that requests would interleave between read and write without the queue.
    const slow: WitnessState = {
      read: async (origin) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        return inner.read(origin);
      },
      write: async (origin, tree) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        written.push(tree.size);
        return inner.write(origin, tree);
      },
    };
    const { witness } = setup([log], slow);
    // Every request claims the witness is at the size just below its own, or at 0.
    const sizes = Array.from({ length: 64 }, (_, i) => i + 1);
    const requests = sizes.flatMap((size) => [
      { old: size - 1, size },
      { old: 0, size },
    ]);
    requests.sort(() => Math.random() - 0.5);
    const answers = await Promise.all(requests.map((r) => witness.add(log.body(r.old, r.size))));
    const cosigned = answers.filter((a) => a.status === 200).map((a) => a.size);
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    expect(written).toEqual([...written].sort((x, y) => x - y));
    expect(new Set(written).size).toBe(written.length);
    const final = (await inner.read(log.origin)) as CosignedTree;
    expect(final.size).toBe(Math.max(...cosigned));
    expect(final.rootHash).toEqual(log.tree.root(final.size));
    // Each 200 was one step of that increasing sequence.
    expect([...cosigned].sort((x, y) => x - y)).toEqual(written);
  });

  it("lets exactly one of two racing first submissions through", async () => {
    const log = testLog();
    const { witness, state } = setup([log]);
    const answers = await Promise.all([witness.add(log.body(0, 3)), witness.add(log.body(0, 6))]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200) as { size: number };
    expect((await state.read(log.origin))?.size).toBe(winner.size);
  });

  it("rejects when the state cannot be written, keeps the old state, and goes on", async () => {
    const log = testLog();
    const inner = new MemoryWitnessState();
    let failing = true;
    const flaky: WitnessState = {
      read: (origin) => inner.read(origin),
      write: (origin, tree) =>
        failing ? Promise.reject(new Error("disk full")) : inner.write(origin, tree),
    };
    const { witness } = setup([log], flaky);
    await expect(witness.add(log.body(0, 3))).rejects.toThrow("disk full");
    failing = false;
    expect(await witness.add(log.body(3, 4))).toMatchObject({ status: 409, size: 0 });
    expect((await witness.add(log.body(0, 4))).status).toBe(200);
  });

  it("takes only Ed25519 (0x01) log keys and an Ed25519 signer", () => {
    const log = testLog();
    const cosigner = parseVerifierKey(
      formatVerifierKey(log.origin, log.signer.publicKey, COSIGNATURE_V1_TYPE),
    );
    const state = new MemoryWitnessState();
    expect(() => new Witness({ signer: witnessSigner, logs: [cosigner], state })).toThrow(
      /logs\[0\]/,
    );
    expect(
      () => new Witness({ signer: { ...witnessSigner, seed: new Uint8Array(3) }, logs: [], state }),
    ).toThrow(TypeError);
  });
});
