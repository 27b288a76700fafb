import { equalBytes } from "@svc/canonical";
import { LIMITS } from "@svc/protocol";
import { PrekeyError } from "./errors.js";
import type { OneTimePreKey } from "./types.js";

export const MAX_PREKEYS_PER_REQUEST = LIMITS.prekeysPerRequest;
export const MAX_QUEUED_PREKEYS = LIMITS.prekeysQueued;

/**
 * D5: which of `entries` to append to a queue holding `queued`. An entry equal to a queued one
 * (or to an earlier entry of the same request) is skipped; the same keyId with another key, more
 * than 100 entries, or a queue that would pass 1000 rejects the whole request. keyIds are compared
 * against what is queued only: a consumed keyId is no longer known and may be uploaded again.
 */
export function planAppend(queued: OneTimePreKey[], entries: OneTimePreKey[]): OneTimePreKey[] {
  if (entries.length > MAX_PREKEYS_PER_REQUEST) {
    throw new PrekeyError(
      "SVC_BAD_REQUEST",
      `at most ${MAX_PREKEYS_PER_REQUEST} one-time prekeys per request`,
    );
  }
  const known = new Map(queued.map((entry) => [entry.keyId, entry.publicKey]));
  const fresh: OneTimePreKey[] = [];
  for (const entry of entries) {
    const existing = known.get(entry.keyId);
    if (existing === undefined) {
      known.set(entry.keyId, entry.publicKey);
      fresh.push(entry);
    } else if (!equalBytes(existing, entry.publicKey)) {
      throw new PrekeyError(
        "SVC_BAD_REQUEST",
        `one-time prekey ${entry.keyId} is already queued with another public key`,
      );
    }
  }
  if (queued.length + fresh.length > MAX_QUEUED_PREKEYS) {
    throw new PrekeyError(
      "SVC_BAD_REQUEST",
      `at most ${MAX_QUEUED_PREKEYS} one-time prekeys may be queued (${queued.length} are)`,
    );
  }
  return fresh;
}
