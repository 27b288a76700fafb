import { normalizeAddress } from "@svc/canonical";
import { createDeviceLists } from "@svc/devices";
import { readJsonBody } from "@svc/http";
import type { InboxStore } from "@svc/inbox";
import {
  DepositBatchBody,
  type DepositBatchItem,
  depositBatchBodyLimit,
  parseRequest,
  ROUTES,
  routePattern,
  toSvcError,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import { depositLimitText, depositOne } from "./deposit.js";
import { checkDeviceLists } from "./device-list-check.js";

/**
 * POST /v1/deposits: each item judged and stored exactly as POST /v1/inbox/{address} would, its
 * signature covering that route's method and path; the deposits go to the store together, so
 * they share its batched transaction. A refusal of one item is its own result; a failure of the
 * server (5xx) fails the whole request, since deposits are idempotent and the sender retries.
 * A batch naming `deviceLists` is first checked against the latest versions, as a whole.
 */
export function registerInboxDepositBatch(
  app: Hono<AppEnv>,
  services: Services,
  store: InboxStore,
) {
  const route = ROUTES.inboxDepositBatch;
  const lists = createDeviceLists(services.storage.db);
  app.on(route.method, routePattern(route), async (c) => {
    const { maxBlobBytes } = services.config.inbox;
    const body = await readJsonBody(
      c,
      depositBatchBodyLimit(maxBlobBytes),
      `${depositLimitText(maxBlobBytes)}, for all the deposits together`,
    );
    const parsed = parseRequest(DepositBatchBody, body);
    // The items as sent: a signature covers the JSON as the sender wrote it.
    const deposits = body.deposits as Array<{ address: string; body: Record<string, unknown> }>;
    if (parsed.deviceLists !== undefined) {
      await checkDeviceLists(
        lists,
        parsed.deviceLists,
        deposits.map((item) => item.address),
      );
    }
    const results = await Promise.all(
      deposits.map((item) => batchItem(services, store, item.address, item.body)),
    );
    return c.json({ results });
  });
}

async function batchItem(
  services: Services,
  store: InboxStore,
  address: string,
  body: Record<string, unknown>,
): Promise<DepositBatchItem> {
  try {
    const answer = await depositOne(
      services,
      store,
      normalizeAddress(address),
      { method: "POST", path: `/v1/inbox/${address}` },
      body,
    );
    return { status: 200, ...answer };
  } catch (error) {
    const refusal = toSvcError(error);
    if (refusal.status >= 500) throw error;
    const { name, code, message } = refusal.body();
    return { status: refusal.status, name, code, message };
  }
}
