import * as v from "valibot";
import { LIMITS } from "../limits.js";
import { epochMs, OkResponse, signedPayloadEntries, text } from "./fields.js";

const base64url = (field: string) =>
  v.pipe(
    text(field),
    v.regex(/^[A-Za-z0-9_-]+={0,2}$/, `${field} must be base64url`),
    v.maxLength(256, `${field} is too long`),
  );

const endpoint = v.pipe(
  text("endpoint"),
  v.minLength(1, "endpoint must not be empty"),
  v.maxLength(
    LIMITS.pushEndpointLength,
    `endpoint must be at most ${LIMITS.pushEndpointLength} characters`,
  ),
);

/**
 * The PushSubscription JSON a browser (PushSubscription.toJSON()) or a UnifiedPush distributor
 * gives: the push service's endpoint URL, the user agent's P-256 key and its authentication secret.
 */
export const PushSubscriptionJson = v.strictObject(
  {
    endpoint,
    expirationTime: v.optional(v.nullable(epochMs("expirationTime"))),
    keys: v.strictObject(
      { p256dh: base64url("keys.p256dh"), auth: base64url("keys.auth") },
      "keys carries only p256dh and auth",
    ),
  },
  "a subscription carries only endpoint, expirationTime and keys",
);

/** POST /v1/push/subscriptions, signed by the address's bound inbox key. */
export const PushSubscribeBody = v.strictObject(
  { address: text("address"), subscription: PushSubscriptionJson, ...signedPayloadEntries },
  "only address, subscription, signedAt and signature are allowed",
);

/** DELETE /v1/push/subscriptions, signed by the address's bound inbox key. */
export const PushUnsubscribeBody = v.strictObject(
  { address: text("address"), endpoint, ...signedPayloadEntries },
  "only address, endpoint, signedAt and signature are allowed",
);

/** The server's VAPID public key: base64url of the 65-byte uncompressed P-256 point. */
export const PushVapidResponse = v.object({ publicKey: v.string() });

export const PushSubscribeResponse = OkResponse;
/** `removed` is false when the address had no subscription with that endpoint. */
export const PushUnsubscribeResponse = v.object({ ok: v.boolean(), removed: v.boolean() });

/** The plaintext of every wake-up: a version and how many blobs wait in the inbox. */
export const PushWakeUp = v.strictObject({ v: v.literal(1), pending: epochMs("pending") });

export type PushSubscriptionWire = v.InferOutput<typeof PushSubscriptionJson>;
export type PushSubscribeRequest = v.InferInput<typeof PushSubscribeBody>;
export type PushUnsubscribeRequest = v.InferInput<typeof PushUnsubscribeBody>;
export type PushWakeUp = v.InferOutput<typeof PushWakeUp>;
