import { encodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import { httpLogClient } from "./log-client.js";
import { logIdOf } from "./sth.js";
import { FakeLog } from "./test-support/fake-log.js";

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    if (error instanceof KtVerifyError) return error.code;
    throw error;
  }
  return undefined;
}

const log = new FakeLog();
const logIdJson = {
  logId: encodeBase64(logIdOf(log.publicKey)),
  publicKey: encodeBase64(log.publicKey),
};

function serving(answers: Record<string, unknown>, calls: string[] = []) {
  return httpLogClient("https://kt.example", async (url) => {
    calls.push(url);
    const path = new URL(url).pathname;
    return path in answers ? Response.json(answers[path]) : new Response("{}", { status: 404 });
  });
}

describe("httpLogClient.logId", () => {
  it("reads logId and publicKey, and vrfPublicKey when the log has one", async () => {
    const legacy = serving({ "/v1/kt/log_id": logIdJson });
    expect(await legacy.logId?.()).toEqual({
      logId: logIdOf(log.publicKey),
      publicKey: log.publicKey,
    });
    const withVrf = serving({
      "/v1/kt/log_id": { ...logIdJson, vrfPublicKey: encodeBase64(log.vrfPublicKey) },
    });
    expect((await withVrf.logId?.())?.vrfPublicKey).toEqual(log.vrfPublicKey);
  });

  it.each([
    [
      "a logId that is not SHA-256 of publicKey",
      { ...logIdJson, logId: encodeBase64(new Uint8Array(32)) },
    ],
    ["a short vrfPublicKey", { ...logIdJson, vrfPublicKey: "AAAA" }],
    ["a vrfPublicKey that is null", { ...logIdJson, vrfPublicKey: null }],
    ["no publicKey", { logId: logIdJson.logId }],
  ])("refuses %s (KT_MALFORMED)", async (_, body) => {
    expect(await codeOf(serving({ "/v1/kt/log_id": body }).logId?.() as Promise<unknown>)).toBe(
      "KT_MALFORMED",
    );
  });
});

describe("httpLogClient.vrf", () => {
  const answer = {
    address: "alice@example.org:1",
    index: encodeBase64(log.vrfIndexOf("alice@example.org:1")),
    vrfProof: encodeBase64(log.vrfProof("alice@example.org:1")),
  };

  it("fetches GET /v1/kt/vrf/{address} for the normalized address", async () => {
    const calls: string[] = [];
    const client = serving({ "/v1/kt/vrf/alice@example.org:1": answer }, calls);
    expect(await client.vrf?.("\uff41lice@example.org:1")).toEqual({
      address: "alice@example.org:1",
      index: log.vrfIndexOf("alice@example.org:1"),
      vrfProof: log.vrfProof("alice@example.org:1"),
    });
    expect(calls).toEqual(["https://kt.example/v1/kt/vrf/alice@example.org:1"]);
  });

  it.each([
    ["another address", { ...answer, address: "bob@example.org:1" }],
    ["a short index", { ...answer, index: "AAAA" }],
    ["a 79-byte proof", { ...answer, vrfProof: encodeBase64(new Uint8Array(79)) }],
    ["no proof", { address: answer.address, index: answer.index }],
  ])("refuses %s (KT_MALFORMED)", async (_, body) => {
    const client = serving({ "/v1/kt/vrf/alice@example.org:1": body });
    expect(await codeOf(client.vrf?.("alice@example.org:1") as Promise<unknown>)).toBe(
      "KT_MALFORMED",
    );
  });

  it("maps a failed fetch to KT_FETCH_FAILED and refuses an invalid address", async () => {
    const client = serving({});
    expect(await codeOf(client.vrf?.("alice") as Promise<unknown>)).toBe("KT_FETCH_FAILED");
    await expect(client.vrf?.("not an address")).rejects.toThrow(RangeError);
  });
});
