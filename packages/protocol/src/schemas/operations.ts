import * as v from "valibot";
import { ERROR_CODES } from "../errors.js";

export const HealthResponse = v.object({
  status: v.picklist(["ok", "error"]),
  service: v.string(),
});

export const LivenessResponse = v.object({ status: v.literal("ok") });

const check = v.picklist(["ok", "error", "disabled"]);

/** 200 when every backend is ready, 503 (same shape) when one is not. */
export const ReadyResponse = v.object({
  status: v.picklist(["ok", "error"]),
  checks: v.object({ storage: v.picklist(["ok", "error"]), inbox: check, kt: check }),
});

export const ErrorResponseSchema = v.looseObject({
  name: v.string(),
  code: v.picklist(ERROR_CODES),
  message: v.string(),
});

const tally = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** GET /svc-observer/api/state: the operator's view of the server. */
export const ObserverSnapshot = v.object({
  service: v.string(),
  version: v.string(),
  uptimeMs: tally,
  storage: v.object({ kind: v.picklist(["pglite", "postgres"]), ready: v.boolean() }),
  keys: v.object({ identities: tally, oneTimePreKeys: tally }),
  /** `treeSize` is 0 and `lastSthAt` null when key transparency is off. */
  kt: v.object({ enabled: v.boolean(), treeSize: tally, lastSthAt: v.nullable(tally) }),
  inbox: v.object({
    enabled: v.boolean(),
    registrations: tally,
    queuedBlobs: tally,
    queuedBytes: tally,
  }),
  bridges: v.object({
    sse: tally,
    ws: tally,
    poll: tally,
    connectedAddresses: tally,
    presenceSubscriptions: tally,
  }),
  /** Requests per HTTP status, keyed by the status as a string. */
  requests: v.object({ byStatus: v.record(v.pipe(v.string(), v.regex(/^[1-5][0-9]{2}$/)), tally) }),
  rateLimited: tally,
  pruneCycles: tally,
  /** Web Push wake-ups (absent from servers older than them); zeros when push is off. */
  push: v.optional(
    v.object({
      enabled: v.boolean(),
      subscriptions: tally,
      sent: tally,
      failed: tally,
      coalesced: tally,
    }),
  ),
});
