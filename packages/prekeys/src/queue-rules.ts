import { equalBytes } from "@svc/canonical";
import { LIMITS } from "@svc/protocol";
import { PrekeyError } from "./errors.js";
import type { OneTimePreKey } from "./types.js";

export const MAX_PREKEYS_PER_REQUEST = LIMITS.prekeysPerRequest;
export const MAX_QUEUED_PREKEYS = LIMITS.prekeysQueued;

/** The caps of one queue, and its entries' name in refusals. */
export interface QueueRules {
  perRequest: number;
  queued: number;
  name: string;
}

export const X25519_QUEUE: QueueRules = {
  perRequest: MAX_PREKEYS_PER_REQUEST,
  queued: MAX_QUEUED_PREKEYS,
  name: "one-time prekeys",
};

export const KEM_QUEUE: QueueRules = {
  perRequest: LIMITS.prekeysPerRequest,
  queued: LIMITS.kemPreKeysQueued,
  name: "one-time KEM prekeys",
};

/**
 * D5: which of `entries` to append to a queue holding `queued`. An entry equal to a queued one
 * (or to an earlier entry of the same request) is skipped; the same keyId with another key, more
 * than 100 entries, or a queue that would pass 1000 rejects the whole request. keyIds are compared
 * against what is queued only: a consumed keyId is no longer known and may be uploaded again.
 */
export function planAppend<Entry extends OneTimePreKey>(
  queued: OneTimePreKey[],
  entries: Entry[],
  rules: QueueRules = X25519_QUEUE,
): Entry[] {
  if (entries.length > rules.perRequest) {
    throw new PrekeyError(
      "SVC_BAD_REQUEST",
      `at most ${rules.perRequest} ${rules.name} per request`,
    );
  }
  const singular = rules.name.replace(/s$/, "");
  const known = new Map(queued.map((entry) => [entry.keyId, entry.publicKey]));
  const fresh: Entry[] = [];
  for (const entry of entries) {
    const existing = known.get(entry.keyId);
    if (existing === undefined) {
      known.set(entry.keyId, entry.publicKey);
      fresh.push(entry);
    } else if (!equalBytes(existing, entry.publicKey)) {
      throw new PrekeyError(
        "SVC_BAD_REQUEST",
        `${singular} ${entry.keyId} is already queued with another public key`,
      );
    }
  }
  if (queued.length + fresh.length > rules.queued) {
    throw new PrekeyError(
      "SVC_BAD_REQUEST",
      `at most ${rules.queued} ${rules.name} may be queued (${queued.length} are)`,
    );
  }
  return fresh;
}
