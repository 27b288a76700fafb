import { ROUTES, type RouteContract } from "@svc/protocol";
import { answerTypeErrors, type DocumentedAnswer } from "@svc/test-client";
import { afterAll, describe, expect, it } from "vitest";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import {
  STORE_KINDS,
  sendControl,
  startFor,
  startPeers,
  testReceiver,
} from "../test-support/receiver-harness.js";
import { chunkRequest, sealFile, stateRequest } from "../test-support/signed-requests.js";

const closers: Closer[] = [];
afterAll(() => closeAll(closers));

/**
 * The receiver's routes are documented in the prekey server's /openapi.yaml (tag transfer): a
 * client generated from the document a real directory serves must type every real answer of
 * a real receiver.
 */
describe("a client generated from the served /openapi.yaml (openapi-typescript)", () => {
  it("types every real answer of the receiver's JSON routes, with no undeclared member", async () => {
    const peers = await startPeers(closers);
    const served = await (await fetch(`${peers.directory}/openapi.yaml`)).text();
    const openStore = await STORE_KINDS[0]?.open(closers);
    if (openStore === undefined) throw new Error("no store kind");
    const receiver = testReceiver({
      client: peers.receiver,
      store: openStore(),
      dir: await tempDir(closers, "svc-received-"),
    });
    closers.push(async () => receiver.mounted.close());
    const answers: DocumentedAnswer[] = [];
    const record = async (path: string, method: DocumentedAnswer["method"], res: Response) => {
      answers.push({ path, method, status: res.status, body: await res.json() });
    };

    await record(
      "/v1/transfer/health",
      "get",
      await receiver.send(new Request("http://r/v1/transfer/health")),
    );
    const content = new TextEncoder().encode("typed answers ".repeat(100));
    const { start, key } = startFor(content, { lanes: 1, chunkBytes: 1024 });
    const { streamId } = start;
    await record("/v1/transfer/control", "post", await sendControl(peers, receiver, start));
    const chunk = sealFile(content, { streamId, key, lanes: 1, chunkBytes: 1024 }).lanes[0]?.[0];
    if (chunk === undefined) throw new Error("no chunk");
    const sendChunk = () =>
      receiver.send(chunkRequest(peers.sender, { streamId, laneId: 0, seq: 1n, envelope: chunk }));
    const chunkPath = "/v1/transfer/{streamId}/chunk";
    await record(chunkPath, "post", await sendChunk());
    // A replay: 409 with the lane's lastSeqAcked beside the error.
    await record(chunkPath, "post", await sendChunk());
    const statePath = "/v1/transfer/{streamId}/state";
    await record(statePath, "get", await receiver.send(stateRequest(peers.sender, streamId)));
    await record(statePath, "get", await receiver.send(stateRequest(peers.stranger, streamId)));

    const answered = answers.filter((a) => a.status === 200).map((a) => `${a.method} ${a.path}`);
    const receiverRoutes = (Object.values(ROUTES) as RouteContract[])
      .filter((route) => route.response !== undefined && route.server === "receiver")
      .map((route) => `${route.method.toLowerCase()} ${route.path}`);
    expect(new Set(answered)).toEqual(new Set(receiverRoutes));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 409, 200, 401]);
    expect(await answerTypeErrors(served, answers)).toEqual([]);

    // The check can fail: an undeclared member of a chunk's ack is an error.
    const ack = answers[2] as DocumentedAnswer & { body: Record<string, unknown> };
    const errors = await answerTypeErrors(served, [{ ...ack, body: { ...ack.body, future: 1 } }]);
    expect(errors.join("\n")).toMatch(/'"future"' does not exist in type/);
  }, 180_000);
});
