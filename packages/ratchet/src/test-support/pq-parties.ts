import type { PreKeyBundleKeys } from "@svc/protocol";
import { createKemPreKey } from "../identity.js";
import { makeResponder, type Responder, seededRandom } from "./parties.js";

export interface PqResponder extends Responder {
  /** A bundle with a one-time KEM prekey (ids 500, 501, ...), or the last-resort one (id 1). */
  pqBundle(options?: { oneTime?: boolean; lastResort?: boolean }): PreKeyBundleKeys;
}

/** {@link makeResponder} with a last-resort KEM prekey 1 and one-time KEM prekeys on demand. */
export function makePqResponder(label: string): PqResponder {
  const responder = makeResponder(label);
  const random = seededRandom(`${label}-kem`);
  const lastResort = createKemPreKey(responder.identity, 1, { random });
  responder.store.addKemPreKey({ ...lastResort, lastResort: true });
  let nextKem = 500;
  return {
    ...responder,
    pqBundle({ oneTime = true, lastResort: useLastResort = false } = {}) {
      const bundle = responder.bundle({ oneTime });
      const kem = useLastResort
        ? lastResort
        : createKemPreKey(responder.identity, nextKem++, { random });
      if (!useLastResort) responder.store.addKemPreKey({ ...kem, lastResort: false });
      bundle.kemPreKey = {
        keyId: kem.keyId,
        publicKey: kem.publicKey,
        signature: kem.signature,
        lastResort: useLastResort,
      };
      return bundle;
    },
  };
}
