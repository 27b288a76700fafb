import { describe, expect, it } from "vitest";
import { checkDeliveries, checkPrekeys } from "./invariants.js";
import { Recorder } from "./recorder.js";

const keys = (address: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    keyId: from + i,
    publicKey: `${address}/key-${from + i}`,
  }));

/** alice uploads 5 keys (3 then 2), 3 are handed out, 2 remain: a clean run. */
function cleanPrekeys(): Recorder {
  const recorder = new Recorder();
  recorder.prekeysUploaded("alice:1", keys("alice:1", 0, 3), 200);
  recorder.prekeysUploaded("alice:1", keys("alice:1", 3, 2), 200);
  for (const { keyId, publicKey } of keys("alice:1", 0, 3)) {
    recorder.prekeyHandedOut("alice:1", keyId, publicKey);
  }
  recorder.prekeysRemaining.set("alice:1", 2);
  return recorder;
}

describe("checkPrekeys", () => {
  it("passes a run where every key went out once and the queue adds up", () => {
    const result = checkPrekeys(cleanPrekeys());
    expect(result).toMatchObject({ passed: true, violations: 0, examples: [] });
    expect(result.detail).toContain("3 handed out from 1 queues: 0 keys twice");
  });

  it("reports a key handed out twice", () => {
    const recorder = cleanPrekeys();
    recorder.prekeyHandedOut("alice:1", 0, "alice:1/key-0");
    recorder.prekeysRemaining.set("alice:1", 2);
    const result = checkPrekeys(recorder);
    expect(result.passed).toBe(false);
    expect(result.examples[0]).toBe("alice:1 keyId 0 (alice:1/key-0) handed out 2 times");
  });

  it("reports a key that was never uploaded, or not to that address", () => {
    const recorder = cleanPrekeys();
    recorder.prekeyHandedOut("alice:1", 9, "made-up");
    recorder.prekeysUploaded("bob:1", keys("bob:1", 0, 1), 200);
    recorder.prekeyHandedOut("alice:1", 0, "bob:1/key-0");
    recorder.prekeysRemaining.set("bob:1", 1);
    const result = checkPrekeys(recorder);
    expect(result.passed).toBe(false);
    expect(result.examples.filter((e) => e.includes("never uploaded there"))).toHaveLength(2);
  });

  it("reports a key lost: uploaded, never handed out, not queued", () => {
    const recorder = cleanPrekeys();
    recorder.prekeysRemaining.set("alice:1", 1);
    const result = checkPrekeys(recorder);
    expect(result).toMatchObject({ passed: false, violations: 1 });
    expect(result.examples).toEqual(["alice:1: 5 uploaded, 3 handed out, 1 left"]);
  });

  it("does not judge the balance of a queue a failed request may have changed", () => {
    const recorder = cleanPrekeys();
    recorder.prekeysUploaded("alice:1", keys("alice:1", 5, 10), 0);
    const result = checkPrekeys(recorder);
    expect(result.passed).toBe(true);
    expect(result.detail).toContain("1 not judged");
  });
});

/** Three deposits acknowledged by the server, each delivered once to its recipient. */
function cleanDeliveries(): Recorder {
  const recorder = new Recorder();
  for (const [msgId, recipient] of [
    ["m1", "alice:1"],
    ["m2", "alice:1"],
    ["m3", "bob:1"],
  ] as const) {
    recorder.depositSent(msgId, recipient);
    recorder.depositAnswered(msgId, 200, '{"idempotent":false,"expiresAt":1}');
    recorder.delivered(msgId, recipient, recipient === "bob:1" ? "fetch" : "sse");
    recorder.acknowledgedByRecipient.add(msgId);
  }
  return recorder;
}

describe("checkDeliveries", () => {
  it("passes a run where every acknowledged deposit arrived once", () => {
    const result = checkDeliveries(cleanDeliveries());
    expect(result).toMatchObject({ passed: true, violations: 0 });
    expect(result.detail).toContain("3 acknowledged deposits: 3 delivered once, 0 lost");
  });

  it("reports a lost blob", () => {
    const recorder = cleanDeliveries();
    recorder.depositSent("m4", "bob:1");
    recorder.depositAnswered("m4", 200, '{"idempotent":false,"expiresAt":1}');
    const result = checkDeliveries(recorder);
    expect(result).toMatchObject({ passed: false, violations: 1 });
    expect(result.examples).toEqual(["m4 to bob:1 acknowledged, never delivered"]);
  });

  it("reports a blob delivered twice, and counts the extra deliveries", () => {
    const recorder = cleanDeliveries();
    recorder.delivered("m1", "alice:1", "ws");
    recorder.delivered("m1", "alice:1", "sse");
    const result = checkDeliveries(recorder);
    expect(result).toMatchObject({ passed: false, violations: 1 });
    expect(result.detail).toContain("1 more than once (2 extra deliveries)");
    expect(result.examples).toEqual(["m1 to alice:1 delivered 3 times (sse, ws, sse)"]);
  });

  it("reports a delivery to another recipient and one of a blob never deposited", () => {
    const recorder = cleanDeliveries();
    recorder.delivered("m3", "alice:1", "sse");
    recorder.delivered("m9", "alice:1", "sse");
    const result = checkDeliveries(recorder);
    expect(result.passed).toBe(false);
    expect(result.examples).toContain("m3 for bob:1 reached alice:1");
    expect(result.examples).toContain("m9 reached alice:1 and was never deposited");
  });

  it("reports a blob still queued after its ack", () => {
    const recorder = cleanDeliveries();
    recorder.leftQueued.push({ msgId: "m2", recipient: "alice:1" });
    expect(checkDeliveries(recorder)).toMatchObject({ passed: false, violations: 1 });
  });

  it("does not hold the server to a deposit it did not acknowledge", () => {
    const recorder = cleanDeliveries();
    recorder.depositSent("m5", "bob:1");
    recorder.depositAnswered("m5", 503, '{"error":"SVC_UNAVAILABLE"}');
    recorder.depositSent("m6", "bob:1");
    const result = checkDeliveries(recorder);
    expect(result.passed).toBe(true);
    expect(result.detail).toContain("2 deposits without a 200 {idempotent: false}");
  });
});
