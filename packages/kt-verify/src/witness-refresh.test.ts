import { encodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { httpLogClient } from "./log-client.js";
import { type SignedTreeHead, sthToJson } from "./sth.js";
import { key32 } from "./test-support/fake-log.js";
import {
  codeOf,
  NOW,
  note,
  policyFor,
  refusal,
  register,
  w1,
  witnessedLog,
} from "./test-support/witnessed-log.js";
import { KtVerifier } from "./verifier.js";

describe("refresh() with a witness policy", () => {
  it("reads the latest checkpoint, then the STH of its size, and checks both", async () => {
    const log = witnessedLog();
    register(log, "bob", 3);
    const requests: string[] = [];
    let checkpoint = log.checkpoint();
    const fetch = async (url: string) => {
      const path = new URL(url).pathname;
      requests.push(path);
      if (path === "/v1/kt/checkpoint") {
        return new Response(checkpoint, {
          headers: { "content-type": "text/plain; charset=utf-8" },
        });
      }
      const size = /^\/v1\/kt\/sth\/(\d+)$/.exec(path)?.[1];
      if (size !== undefined)
        return Response.json(sthToJson(log.sths[Number(size)] as SignedTreeHead));
      return new Response("", { status: 404 });
    };
    const verifier = new KtVerifier({
      logPublicKey: log.publicKey,
      baseUrl: "https://kt.test",
      fetch,
      now: () => NOW,
      witnessPolicy: policyFor(log),
    });
    expect((await verifier.refresh()).treeSize).toBe(2);
    expect(requests).toEqual(["/v1/kt/checkpoint", "/v1/kt/sth/2"]);
    checkpoint = log.checkpoint(2, [w1]);
    expect(await codeOf(verifier.refresh())).toBe("KT_WITNESS_QUORUM");
    checkpoint = "not a checkpoint\n\n";
    expect(await codeOf(verifier.refresh())).toBe("KT_MALFORMED");
    checkpoint = log.checkpoint(1);
    expect(await codeOf(verifier.refresh())).toBe("KT_LOG_SHRANK");
    checkpoint = note(log, [], `${log.origin}\n9007199254740992\n${encodeBase64(key32(0))}\n`);
    expect(await codeOf(verifier.refresh())).toBe("KT_MALFORMED");
    expect((await verifier.trustedSth())?.treeSize).toBe(2);
  });

  it("refuses a checkpoint whose size's STH is not the one it names, and a failed fetch", async () => {
    const log = witnessedLog();
    register(log, "bob", 3);
    const client = { ...log.client(), sth: async () => log.sths[1] as SignedTreeHead };
    const verifier = new KtVerifier({
      logPublicKey: log.publicKey,
      client,
      now: () => NOW,
      witnessPolicy: policyFor(log),
    });
    expect(await codeOf(verifier.refresh())).toBe("KT_CHECKPOINT_MISMATCH");
    const offline = httpLogClient("https://kt.test", async () => new Response("", { status: 404 }));
    const fetchFailed = await refusal(offline.checkpoint?.() ?? Promise.resolve());
    expect(fetchFailed).toMatchObject({ code: "KT_FETCH_FAILED" });
    expect(fetchFailed.message).toMatch(/GET \/v1\/kt\/checkpoint answered 404/);
    const unreachable = httpLogClient("https://kt.test", async () => {
      throw new TypeError("connection refused");
    });
    expect(await codeOf(unreachable.checkpoint?.() ?? Promise.resolve())).toBe("KT_FETCH_FAILED");
  });
});
