import { encodeBase64 } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkpointText } from "./checkpoint.js";
import { KtVerifyError } from "./errors.js";
import { defaultSthVerifier } from "./signature.js";
import type { SignedTreeHead } from "./sth.js";
import { FakeLog, FakeWitness, key32 } from "./test-support/fake-log.js";
import {
  bundle,
  codeOf,
  NOW,
  note,
  policyFor,
  refusal,
  register,
  SECONDS,
  stranger,
  verifierFor,
  w1,
  w2,
  w3,
  witnessedLog,
} from "./test-support/witnessed-log.js";
import { KtVerifier } from "./verifier.js";
import { parseWitnessPolicy, type WitnessPolicy } from "./witness-policy.js";
import { MAX_COSIGNATURE_SKEW_MS, WitnessQuorum } from "./witness-quorum.js";

describe("KtVerifier with a witness policy", () => {
  it("trusts an STH whose checkpoint 2 of the 3 witnesses cosigned", async () => {
    const log = witnessedLog();
    const verifier = verifierFor(log);
    const verified = await verifier.verifyBundle("alice", bundle(log));
    expect(verified.sth.treeSize).toBe(1);
    expect((await verifier.trustedSth())?.treeSize).toBe(1);
    log.witnesses = [w3, w1, w2];
    register(log, "bob", 3);
    expect((await verifier.verifyBundle("alice", bundle(log))).sth.treeSize).toBe(2);
  });

  it("refuses a quorum missed: 1 cosignature where 2 are needed, or none", async () => {
    const log = witnessedLog();
    const one = await refusal(
      verifierFor(log).verifyBundle(
        "alice",
        bundle(log, note(log, [w2.cosign(checkpointText(log.origin, log.latestSth()), SECONDS)])),
      ),
    );
    expect(one.code).toBe("KT_WITNESS_QUORUM");
    expect(one.message).toMatch(/1 of 2 needed/);
    const none = await refusal(verifierFor(log).verifyBundle("alice", bundle(log, note(log, []))));
    expect(none).toMatchObject({ code: "KT_WITNESS_QUORUM" });
    expect(none.message).toMatch(/0 of 2 needed/);
    const verifier = verifierFor(log, policyFor(log, { threshold: 3 }));
    expect(await codeOf(verifier.verifyBundle("alice", bundle(log)))).toBe("KT_WITNESS_QUORUM");
    expect(await verifier.trustedSth()).toBeUndefined();
  });

  it("refuses an STH without a checkpoint, and reads a non-string one as malformed", async () => {
    const log = witnessedLog();
    const missing = await refusal(verifierFor(log).verifyBundle("alice", bundle(log, undefined)));
    expect(missing.code).toBe("KT_WITNESS_QUORUM");
    expect(missing.message).toMatch(/no checkpoint.*0 of 2 needed/);
    expect(await codeOf(verifierFor(log).verifyBundle("alice", bundle(log, 42)))).toBe(
      "KT_MALFORMED",
    );
    expect(await codeOf(verifierFor(log).observeSth(log.latestSth()))).toBe("KT_WITNESS_QUORUM");
    expect(await codeOf(verifierFor(log).observeSth(log.latestSth(), log.checkpoint()))).toBe(
      "accepted",
    );
    const notFound = { name: "NotFound", code: "SVC_NOT_REGISTERED", message: "x" };
    const absent = (checkpoint: unknown) => ({
      ...notFound,
      ktProof: { ...log.proofJson("carol"), checkpoint },
    });
    expect(await codeOf(verifierFor(log).verifyNotFound("carol", absent(log.checkpoint())))).toBe(
      "accepted",
    );
    expect(await codeOf(verifierFor(log).verifyNotFound("carol", absent(7)))).toBe("KT_MALFORMED");
    expect(await codeOf(verifierFor(log).verifyNotFound("carol", absent(undefined)))).toBe(
      "KT_WITNESS_QUORUM",
    );
  });

  it("ignores checkpoints entirely without a policy (servers before KT v2 send none)", async () => {
    const log = witnessedLog();
    for (const checkpoint of [undefined, 42, "not a note", note(log, [])]) {
      const verifier = verifierFor(log, null);
      expect(await codeOf(verifier.verifyBundle("alice", bundle(log, checkpoint)))).toBe(
        "accepted",
      );
    }
  });

  it("does not count a cosignature by a key outside the policy", async () => {
    const log = witnessedLog();
    const text = checkpointText(log.origin, log.latestSth());
    // The stranger's key, and another key under a policy witness's name.
    const impostor = new FakeWitness("w2.example", key32(99));
    const missed = note(log, [
      w1.cosign(text, SECONDS),
      stranger.cosign(text, SECONDS),
      impostor.cosign(text, SECONDS),
    ]);
    const result = await refusal(verifierFor(log).verifyBundle("alice", bundle(log, missed)));
    expect(result.code).toBe("KT_WITNESS_QUORUM");
    expect(result.message).toMatch(/1 of 2 needed/);
    const met = note(log, [
      stranger.cosign(text, SECONDS),
      w1.cosign(text, SECONDS),
      w3.cosign(text, SECONDS),
    ]);
    expect(await codeOf(verifierFor(log).verifyBundle("alice", bundle(log, met)))).toBe("accepted");
  });

  it("counts a witness that cosigned twice once", async () => {
    const log = witnessedLog();
    const text = checkpointText(log.origin, log.latestSth());
    const twice = note(log, [
      w1.cosign(text, SECONDS),
      w1.cosign(text, SECONDS - 60),
      w1.cosign(text, SECONDS),
    ]);
    const result = await refusal(verifierFor(log).verifyBundle("alice", bundle(log, twice)));
    expect(result).toMatchObject({ code: "KT_WITNESS_QUORUM" });
    expect(result.message).toMatch(/1 of 2 needed/);
  });

  it("does not count a cosignature older than maxAgeMs (default maxStaleMs) or 5 minutes ahead", async () => {
    const log = witnessedLog();
    const text = checkpointText(log.origin, log.latestSth());
    const aged = (seconds: number) =>
      note(log, [w1.cosign(text, SECONDS), w2.cosign(text, seconds)]);
    const hourOld = aged(SECONDS - 3600);
    const fresh = { maxAgeMs: 3600_000 };
    const run = (checkpoint: string, policy: Partial<WitnessPolicy>, maxStaleMs?: number) =>
      codeOf(
        verifierFor(
          log,
          policyFor(log, policy),
          maxStaleMs === undefined ? {} : { maxStaleMs },
        ).verifyBundle("alice", bundle(log, checkpoint)),
      );
    expect(await run(hourOld, fresh)).toBe("accepted");
    expect(await run(aged(SECONDS - 3601), fresh)).toBe("KT_WITNESS_QUORUM");
    expect(await run(hourOld, {}, 3600_000)).toBe("accepted");
    expect(await run(aged(SECONDS - 3601), {}, 3600_000)).toBe("KT_WITNESS_QUORUM");
    expect(await run(aged(SECONDS - 23 * 3600), {})).toBe("accepted");
    const skew = MAX_COSIGNATURE_SKEW_MS / 1000;
    expect(await run(aged(SECONDS + skew), {})).toBe("accepted");
    const ahead = await refusal(
      verifierFor(log).verifyBundle("alice", bundle(log, aged(SECONDS + skew + 1))),
    );
    expect(ahead.code).toBe("KT_WITNESS_QUORUM");
    expect(ahead.message).toMatch(/1 of 2 needed .*1 more too old or too far ahead/);
  });

  it("refuses a checkpoint for another size, root hash or index root", async () => {
    const log = witnessedLog();
    const older = log.checkpoint(0);
    const cosigned = (text: string) =>
      note(log, [w1.cosign(text, SECONDS), w2.cosign(text, SECONDS)], text);
    const sth = log.latestSth();
    const other = (changes: Partial<SignedTreeHead>) =>
      cosigned(checkpointText(log.origin, { ...sth, ...changes }));
    const right = checkpointText(log.origin, sth);
    const cases: [string, RegExp][] = [
      [older, /its size is 0/],
      [other({ treeSize: 2 }), /its size is 2/],
      [other({ rootHash: key32(5) }), /root hash/],
      [other({ indexRoot: key32(5) }), /extension lines/],
      [cosigned(right.replace(/indexRoot .*\n/, "")), /extension lines/],
      [cosigned(`${right}more 1\n`), /extension lines/],
    ];
    for (const [checkpoint, message] of cases) {
      const result = await refusal(verifierFor(log).verifyBundle("alice", bundle(log, checkpoint)));
      expect(result.code).toBe("KT_CHECKPOINT_MISMATCH");
      expect(result.message).toMatch(message);
    }
  });

  it("refuses a checkpoint without the log's signature under its origin", async () => {
    const log = witnessedLog();
    const text = checkpointText(log.origin, log.latestSth());
    const cosignatures = [w1.cosign(text, SECONDS), w2.cosign(text, SECONDS)];
    const unsigned = `${text}\n${cosignatures.join("")}`;
    const otherName = log.signCheckpoint(text, "another.name") + cosignatures.join("");
    const otherKey = new FakeLog(key32(8), () => NOW);
    otherKey.origin = log.origin;
    const byOtherKey = otherKey.signCheckpoint(text) + cosignatures.join("");
    for (const checkpoint of [unsigned, otherName, byOtherKey]) {
      const result = await refusal(verifierFor(log).verifyBundle("alice", bundle(log, checkpoint)));
      expect(result.code).toBe("KT_BAD_SIGNATURE");
      expect(result.message).toMatch(/no valid signature of the log's key/);
    }
    // A bad signature by the log's key (same name and key ID) refuses the note.
    const line = log.signCheckpoint(text).slice(text.length + 1);
    const forged = `${text}\n${line.slice(0, 30)}${line[30] === "A" ? "B" : "A"}${line.slice(31)}${cosignatures.join("")}`;
    expect(await codeOf(verifierFor(log).verifyBundle("alice", bundle(log, forged)))).toBe(
      "KT_BAD_SIGNATURE",
    );
  });

  it("refuses a checkpoint of another origin", async () => {
    const log = witnessedLog();
    const elsewhere = witnessedLog();
    elsewhere.origin = "other.example/log";
    const result = await refusal(
      verifierFor(log).verifyBundle("alice", bundle(log, elsewhere.checkpoint())),
    );
    expect(result.code).toBe("KT_WRONG_LOG");
    expect(result.message).toMatch(/"other\.example\/log", the policy's is "svc-kt\//);
    const policy = policyFor(log, { origin: "log.example/kt" });
    expect(await codeOf(verifierFor(log, policy).verifyBundle("alice", bundle(log)))).toBe(
      "KT_WRONG_LOG",
    );
  });

  it("refuses a tampered cosignature by a policy witness, and does not count a renamed one", async () => {
    const log = witnessedLog();
    const text = checkpointText(log.origin, log.latestSth());
    const good = w2.cosign(text, SECONDS);
    const prefix = "— w2.example ".length;
    const flip = (at: number) => {
      const bytes = Uint8Array.from(atob(good.slice(prefix, -1)), (c) => c.charCodeAt(0));
      bytes[at] = (bytes[at] as number) ^ 1;
      return `${good.slice(0, prefix)}${encodeBase64(bytes)}\n`;
    };
    const withLine = (line: string) => note(log, [w1.cosign(text, SECONDS), line]);
    // A flipped timestamp or signature bit: the witness's signature fails, the note is refused.
    for (const at of [4, 11, 12, 40, 75]) {
      expect(
        await codeOf(verifierFor(log).verifyBundle("alice", bundle(log, withLine(flip(at))))),
      ).toBe("KT_BAD_SIGNATURE");
    }
    // A flipped key ID: no longer the witness's line, so not counted.
    expect(
      await codeOf(verifierFor(log).verifyBundle("alice", bundle(log, withLine(flip(0))))),
    ).toBe("KT_WITNESS_QUORUM");
    expect(await codeOf(verifierFor(log).verifyBundle("alice", bundle(log, withLine(good))))).toBe(
      "accepted",
    );
  });

  it("verifies each checkpoint note's signatures once, judging the cosignatures' age every time", async () => {
    const log = witnessedLog();
    let calls = 0;
    let now = NOW;
    const verifier = new KtVerifier({
      logPublicKey: log.publicKey,
      client: log.client(),
      now: () => now,
      witnessPolicy: policyFor(log, { maxAgeMs: 60_000 }),
      signatureVerifier: async (signature, message, publicKey) => {
        calls++;
        return defaultSthVerifier(signature, message, publicKey);
      },
    });
    const answer = bundle(log);
    await verifier.verifyBundle("alice", answer);
    expect(calls).toBe(4); // the STH, the checkpoint's signature, two cosignatures
    await verifier.verifyBundle("alice", answer);
    expect(calls).toBe(5); // the STH only
    now += 61_000;
    expect(await codeOf(verifier.verifyBundle("alice", answer))).toBe("KT_WITNESS_QUORUM");
  });
});

describe("every flipped bit of a cosigned checkpoint", () => {
  const log = witnessedLog();
  const text = checkpointText(log.origin, log.latestSth());
  const valid = note(log, [
    w1.cosign(text, SECONDS),
    w2.cosign(text, SECONDS),
    w3.cosign(text, SECONDS),
  ]);
  const bytes = new TextEncoder().encode(valid);
  const flipped = (bit: number) => {
    const copy = bytes.slice();
    copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7));
    return new TextDecoder().decode(copy);
  };
  const quorum = (threshold: number) =>
    new WitnessQuorum(
      parseWitnessPolicy(policyFor(log, { threshold })),
      log.publicKey,
      3600_000,
      defaultSthVerifier,
    );

  it("fails with a KtVerifyError when all 3 are needed", async () => {
    const all = quorum(3);
    expect((await all.check(log.latestSth(), valid, NOW)).cosignatures).toHaveLength(3);
    await fc.assert(
      fc.asyncProperty(fc.nat(bytes.length * 8 - 1), async (bit) => {
        const error = await all.check(log.latestSth(), flipped(bit), NOW).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(KtVerifyError);
      }),
      { numRuns: 300 },
    );
  });

  it("fails, or leaves the flipped cosignature uncounted, when 2 of 3 are needed", async () => {
    const twoOfThree = quorum(2);
    await fc.assert(
      fc.asyncProperty(fc.nat(bytes.length * 8 - 1), async (bit) => {
        const outcome = await twoOfThree.check(log.latestSth(), flipped(bit), NOW).then(
          (result) => result,
          (e: unknown) => e,
        );
        if (outcome instanceof KtVerifyError) return;
        expect(outcome).not.toBeInstanceOf(Error);
        const counted = (outcome as { cosignatures: { name: string }[] }).cosignatures;
        expect(counted).toHaveLength(2);
        // The flipped bit is in a cosignature line's key ID: that witness no longer counts.
        expect(bit >> 3).toBeGreaterThan(text.length);
      }),
      { numRuns: 300 },
    );
  });
});
