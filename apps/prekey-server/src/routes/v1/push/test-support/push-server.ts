import { createPushSubscriptions } from "@svc/push";
import { envelope, InboxClient, overHttp, type Party, party } from "@svc/test-client";
import { type PushEndpoint, startPushEndpoint } from "@svc/web-push/test-support";
import { afterEach } from "vitest";
import type { CreateAppOptions } from "../../../../app.js";
import type { RunningServer } from "../../../../server.js";
import { startTestServer } from "../../../../test-support/app.js";

export const PUSH_CONTACT = "mailto:ops@example.org";
const PATH = "/v1/push/subscriptions";
let deposits = 0;

const endpoints: PushEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
});

/** A local push service (closed after the test) that takes only this server's VAPID key. */
export async function pushEndpointFor(server: RunningServer): Promise<PushEndpoint> {
  const { publicKey } = (await (await fetch(`${server.url}/v1/push/vapid`)).json()) as {
    publicKey: string;
  };
  const endpoint = await startPushEndpoint({ vapidPublicKey: publicKey });
  endpoints.push(endpoint);
  return endpoint;
}

/**
 * A server whose wake-ups may go to the local (http, 127.0.0.1) push endpoint, and one address
 * registered on it, with what a test does to them.
 */
export async function startPushServer(
  env: Record<string, string> = {},
  options: CreateAppOptions = {},
) {
  const server = await startTestServer(
    {
      SVC_RATE_LIMIT: "off",
      SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on",
      SVC_PUSH_CONTACT: PUSH_CONTACT,
      ...env,
    },
    options,
  );
  return { server, endpoint: await pushEndpointFor(server), ...addressOn(server) };
}

/** An inbox address (registered on first use) on `server`, its push subscriptions and blobs. */
export function addressOn(
  server: RunningServer,
  address = "alice@example.org:1",
  owner: Party = party("push-owner"),
) {
  const client = new InboxClient(overHttp(server.url), Date.now);
  const sender = party("push-sender");
  return {
    address,
    owner,
    client,
    register: async () => {
      const res = await client.register(address, owner);
      if (res.status !== 200) throw new Error(`register answered ${res.status}`);
    },
    subscribe: (subscription: unknown) =>
      client.send("POST", PATH, client.signed("POST", PATH, { address, subscription }, owner)),
    /** Deposits a blob never deposited before (by any helper); the deposit's answer. */
    deposit: () => client.deposit(address, sender, envelope(++deposits)),
    fetchInbox: () => client.fetch(address, owner),
    ack: (msgId: string) => client.ack(address, owner, msgId),
    stored: () => createPushSubscriptions(server.svc.services.storage.db).ofAddresses([address]),
    /** svc_push_wakeups_total{outcome} on this server. */
    wakeUps: async (outcome: string) => {
      const metric = await server.svc.services.metrics.pushWakeUps.get();
      return metric.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    },
  };
}
