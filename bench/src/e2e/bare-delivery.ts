import { createHash, randomFillSync } from "node:crypto";
import { encodeBase64 } from "@svc/canonical";
import {
  bridgeUrl,
  InboxClient,
  overHttp,
  type Party,
  send,
  signedBodyBy,
  party as testParty,
} from "@svc/test-client";
import { keepAliveSockets, nodeSigner } from "@svc/test-client/node";
import WebSocket from "ws";
import { DeliveryClock, type DeliveryPath } from "./fixed-rate.js";

/**
 * The floor under the client's delivery: signed deposits of random bytes (0x02 first, as long as
 * the client's envelopes) sent on bare keep-alive sockets and signed by node:crypto, to a
 * recipient whose bridge is a plain `ws` WebSocket that reads the msgId and nothing else: no
 * session, no decryption, no ack.
 */
export async function bareDelivery(
  server: string,
  options: { ciphertextBytes: number; maxInFlight: number },
): Promise<DeliveryPath> {
  const run = Date.now().toString(36);
  const owner = party(`bare-owner-${run}`);
  const sender = party(`bare-sender-${run}`);
  const address = `bench-bare-${run}`;
  const inbox = new InboxClient(overHttp(server), Date.now);
  const registered = await inbox.register(address, owner);
  if (registered.status !== 200) throw new Error(`inbox register answered ${registered.status}`);

  const clock = new DeliveryClock();
  /** msgId (hex SHA-256 of the ciphertext) -> message number. */
  const numbers = new Map<string, number>();
  const socket = new WebSocket(bridgeUrl(server, "ws", owner, address).replace(/^http/, "ws"));
  socket.on("message", (data: Buffer) => {
    const { msgId } = JSON.parse(String(data)) as { msgId: string };
    const n = numbers.get(msgId);
    if (n === undefined) return;
    numbers.delete(msgId);
    clock.delivered(n);
  });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });

  const http = keepAliveSockets(server, options.maxInFlight);
  const path = `/v1/inbox/${address}`;
  return {
    clock,
    async send(n) {
      const ciphertext = randomFillSync(new Uint8Array(options.ciphertextBytes));
      ciphertext[0] = 0x02;
      const msgId = createHash("sha256").update(ciphertext).digest("hex");
      numbers.set(msgId, n);
      const fields = {
        msgId,
        ciphertext: encodeBase64(ciphertext),
        expiresAt: Date.now() + 3_600_000,
        senderPublicKey: sender.publicKey,
        signedAt: Date.now(),
      };
      const body = signedBodyBy(sender.signer, "POST", path, fields);
      const res = await send(http, { method: "POST", path, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`deposit answered ${res.status}: ${res.body}`);
    },
    async close() {
      socket.terminate();
      http.close();
    },
  };
}

const party = (label: string): Party => testParty(`bench-e2e:${label}`, nodeSigner);
