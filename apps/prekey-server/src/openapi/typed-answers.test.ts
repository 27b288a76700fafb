import { decodeBase64 } from "@svc/canonical";
import { deviceListToJson, firstDeviceList, ROUTES, type RouteContract } from "@svc/protocol";
import {
  answerTypeErrors,
  bridgeUrl,
  type DocumentedAnswer,
  deleteBody,
  envelope,
  InboxClient,
  jsonRequest,
  kemPreKey,
  kemPreKeys,
  msgIdOf,
  oneTimePreKeys,
  overHttp,
  party,
  registerBody,
  registerFields,
  replenishBody,
  signedBodyBy,
  testIdentity,
} from "@svc/test-client";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../test-support/app.js";

type Answer = DocumentedAnswer;

const OBSERVER_TOKEN = "o".repeat(32);

/** Real answers of every JSON route of the prekey server, KT proofs of all three kinds included. */
async function realAnswers(): Promise<{ served: string; answers: Answer[] }> {
  const server = await startTestServer({
    SVC_RATE_LIMIT: "off",
    SVC_OBSERVER_TOKEN: OBSERVER_TOKEN,
  });
  const answers: Answer[] = [];
  const call = async (
    method: Answer["method"],
    path: string,
    url: string,
    init: RequestInit = {},
  ): Promise<Answer> => {
    const res = await fetch(new URL(url, server.url), { ...init, method: method.toUpperCase() });
    const answer = { path, method, status: res.status, body: await res.json() };
    answers.push(answer);
    return answer;
  };
  const send = (method: Answer["method"], path: string, url: string, body: unknown) =>
    call(method, path, url, jsonRequest(method.toUpperCase(), body));

  const served = await (await fetch(`${server.url}/openapi.yaml`)).text();
  await call("get", "/health", "/health");
  await call("get", "/healthz", "/healthz");
  await call("get", "/ready", "/ready");

  const alice = testIdentity("alice@example.org:1");
  const now = Date.now();
  await send("post", "/v1/keys/register", "/v1/keys/register", registerBody(alice, now, [1, 2]));
  await send("post", "/v1/keys/register", "/v1/keys/register", { address: alice.address });
  await send("post", "/v1/keys/replenish", "/v1/keys/replenish", {
    ...replenishBody(alice, now, oneTimePreKeys([3])),
  });
  await call("get", "/v1/keys/count/{address}", `/v1/keys/count/${alice.address}`);
  await call("get", "/v1/keys/count/{address}", "/v1/keys/count/-bad");
  const bundle = "/v1/keys/bundle/{address}";
  const inclusion = await eventually(() => call("get", bundle, `/v1/keys/bundle/${alice.address}`));
  const absence = await call("get", bundle, "/v1/keys/bundle/nobody@example.org:1");
  // A post-quantum identity: its bundle carries kemPreKey, its count kemCount.
  const carol = testIdentity("carol@example.org:1");
  const pqRegister = {
    ...registerFields(carol, now, [1]),
    kemLastResortPreKey: kemPreKey(carol, 9, "last-resort"),
    kemPreKeys: kemPreKeys(carol, [1, 2]),
  };
  const keysPost = (path: string, fields: Record<string, unknown>) =>
    send("post", path, path, signedBodyBy(carol.signer, "POST", path, fields));
  await keysPost("/v1/keys/register", pqRegister);
  const pqReplenish = { address: carol.address, kemPreKeys: kemPreKeys(carol, [3]), signedAt: now };
  await keysPost("/v1/keys/replenish", pqReplenish);
  const kemCount = await call("get", "/v1/keys/count/{address}", `/v1/keys/count/${carol.address}`);
  expect(kemCount.body).toEqual({ count: 1, kemCount: 3 });
  const withKem = await eventually(() => call("get", bundle, `/v1/keys/bundle/${carol.address}`));
  expect(withKem.body).toHaveProperty("kemPreKey.publicKey");
  const gone = testIdentity("gone@example.org:1");
  await send("post", "/v1/keys/register", "/v1/keys/register", registerBody(gone, now, [1]));
  await send("delete", "/v1/keys/{address}", `/v1/keys/${gone.address}`, deleteBody(gone, now));
  const tombstone = await eventually(() => call("get", bundle, `/v1/keys/bundle/${gone.address}`));
  expect([inclusion, absence, tombstone].map(proofKind)).toEqual([
    "inclusion",
    "absence",
    "tombstone",
  ]);

  // An account's device list: absent (with a proof), then version 1, read with its proof.
  const devices = "/v1/devices/{account}";
  await call("get", devices, "/v1/devices/alice@example.org");
  const first = deviceListToJson(
    firstDeviceList(
      { address: alice.address, identitySigningKey: decodeBase64(alice.identitySigningKey, 32) },
      alice.seed,
    ),
  );
  await send("post", devices, "/v1/devices/alice@example.org", first);
  await send("post", devices, "/v1/devices/alice@example.org", first);
  await send("post", devices, "/v1/devices/alice@example.org", { account: "x" });
  const listed = await eventually(() => call("get", devices, "/v1/devices/alice@example.org"));
  expect(listed.body).toHaveProperty("ktProof.body.type", "inclusion");
  const versions = "/v1/devices/{account}/versions/{version}";
  await call("get", versions, "/v1/devices/alice@example.org/versions/1");
  await call("get", versions, "/v1/devices/alice@example.org/versions/2");

  await call("get", "/v1/kt/log_id", "/v1/kt/log_id");
  await call("get", "/v1/kt/sth", "/v1/kt/sth");
  await call("get", "/v1/kt/sth/{treeSize}", "/v1/kt/sth/1");
  await call("get", "/v1/kt/sth/{treeSize}", "/v1/kt/sth/1000000");
  await call("get", "/v1/kt/consistency", "/v1/kt/consistency?from=1&to=2");
  await call("get", "/v1/kt/consistency", "/v1/kt/consistency");
  await call("get", "/v1/kt/leaves", "/v1/kt/leaves?start=0");
  await call("get", "/v1/kt/vrf/{address}", `/v1/kt/vrf/${alice.address}`);

  const bob = "bob@example.org:1";
  const owner = party("typed-answers-owner");
  const sender = party("typed-answers-sender");
  const inbox = new InboxClient(overHttp(server.url), Date.now);
  const record = async (path: string, method: Answer["method"], res: Promise<Response>) => {
    const answer = await res;
    answers.push({ path, method, status: answer.status, body: await answer.json() });
  };
  await record("/v1/inbox/register", "post", inbox.register(bob, owner));
  await record("/v1/inbox/{address}", "post", inbox.deposit(bob, sender, envelope(1)));
  await record("/v1/inbox/{address}", "post", inbox.deposit(bob, sender, envelope(1)));
  await record(
    "/v1/inbox/{address}",
    "post",
    inbox.deposit(bob, sender, envelope(2), { msgId: msgIdOf(envelope(3)) }),
  );
  await record(
    "/v1/deposits",
    "post",
    inbox.depositBatch([
      { address: bob, body: inbox.depositBody(bob, sender, envelope(4)) },
      { address: bob, body: inbox.depositBody(bob, sender, envelope(1)) },
      { address: "nobody@example.org:1", body: inbox.depositBody(bob, sender, envelope(5)) },
    ]),
  );
  await record("/v1/inbox/{address}/fetch", "post", inbox.fetch(bob, owner, { limit: 10 }));
  await call("get", "/v1/bridge/poll", bridgeUrl(server.url, "poll", owner, bob));
  const msgId = msgIdOf(envelope(1));
  await record("/v1/inbox/{address}/{msgId}", "delete", inbox.ack(bob, owner, msgId));
  await record("/v1/inbox/{address}/{msgId}", "delete", inbox.ack(bob, owner, msgId));
  await call("get", "/v1/push/vapid", "/v1/push/vapid");
  const pushPath = "/v1/push/subscriptions";
  const endpoint = "https://203.0.113.7/push/1";
  const subscription = {
    endpoint,
    expirationTime: null,
    keys: {
      p256dh:
        "BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU",
      auth: "BwcHBwcHBwcHBwcHBwcHBw",
    },
  };
  const push = (method: "POST" | "DELETE", fields: Record<string, unknown>) =>
    inbox.send(
      method,
      pushPath,
      inbox.signed(method, pushPath, { address: bob, ...fields }, owner),
    );
  await record(pushPath, "post", push("POST", { subscription }));
  await record(
    pushPath,
    "post",
    push("POST", { subscription: { ...subscription, endpoint: "http://x" } }),
  );
  await record(pushPath, "delete", push("DELETE", { endpoint }));
  await record(pushPath, "delete", push("DELETE", { endpoint }));
  await record("/v1/inbox/register/{address}", "delete", inbox.unregister(bob, owner));

  await call("get", "/svc-observer/api/state", "/svc-observer/api/state", {
    headers: { authorization: `Bearer ${OBSERVER_TOKEN}` },
  });
  await call("get", "/svc-observer/api/state", "/svc-observer/api/state");
  return { served, answers };
}

/** A bundle's proof may trail the change by a log append: ask until it is there. */
async function eventually(ask: () => Promise<Answer>): Promise<Answer> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await ask();
    if (proofKind(answer) !== undefined) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("no ktProof came");
}

function proofKind(answer: Answer): string | undefined {
  return (answer.body as { ktProof?: { body: { type: string } } }).ktProof?.body.type;
}

describe("a client generated from the served /openapi.yaml (openapi-typescript)", () => {
  it("types every real answer of every JSON route, with no undeclared member", async () => {
    const { served, answers } = await realAnswers();
    const answered = answers.filter((a) => a.status === 200).map((a) => `${a.method} ${a.path}`);
    // The receiver's routes are checked by @svc/transfer-peer's typed-answers test.
    const jsonRoutes = (Object.values(ROUTES) as RouteContract[])
      .filter((route) => route.response !== undefined && route.server !== "receiver")
      .map((route) => `${route.method.toLowerCase()} ${route.path}`);
    expect(new Set(answered)).toEqual(new Set(jsonRoutes));
    expect(await answerTypeErrors(served, answers)).toEqual([]);

    // The check can fail: one undeclared member in a nested proof is an error.
    const bundle = answers.find((a) => a.path === "/v1/keys/bundle/{address}" && a.status === 200);
    const tampered = structuredClone(bundle) as Answer & {
      body: { ktProof: { body: { indexProof: Record<string, unknown> } } };
    };
    tampered.body.ktProof.body.indexProof.future = 1;
    const errors = await answerTypeErrors(served, [tampered]);
    expect(errors.join("\n")).toMatch(/'"future"' does not exist in type '{ depth: number;/);
  }, 180_000);
});
