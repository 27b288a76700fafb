import { encodeBase64 } from "@svc/canonical";
import { envelope, InboxClient, overHttp, type Party, party } from "@svc/test-client";
import type { RunningServer } from "../../../../server.js";

/** Inbox requests against a running server, signed with the real clock. */
export function inboxClient(server: RunningServer): InboxClient {
  return new InboxClient(overHttp(server.url), Date.now);
}

/** Live connections of one transport, from the server's own gauge. */
export async function liveBridges(server: RunningServer, transport: string): Promise<number> {
  const metric = await server.svc.services.metrics.bridgesLive.get();
  return metric.values.find((v) => v.labels.transport === transport)?.value ?? 0;
}

/** Registers `address` to `owner` and returns a depositor of numbered envelopes. */
export async function registeredInbox(server: RunningServer, address: string, owner: Party) {
  const client = inboxClient(server);
  const res = await client.register(address, owner);
  if (res.status !== 200) throw new Error(`register answered ${res.status}`);
  const sender = party("bridge-sender");
  return async (n: number) => {
    const deposited = await client.deposit(address, sender, envelope(n));
    if (deposited.status !== 200) throw new Error(`deposit answered ${deposited.status}`);
    return encodeBase64(envelope(n));
  };
}
