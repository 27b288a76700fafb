import { decodeBase64 } from "@svc/canonical";
import { signedBody } from "@svc/protocol";
import type { ClientOptions } from "../index.js";
import { memoryStore } from "../index.js";
import { member, type TestClient } from "./clients.js";
import { rewriteJson } from "./wire.js";

const KEM_UPLOADS = ["kemLastResortPreKey", "kemPreKeys"];

/**
 * A registered client that behaves on the wire as one built before ML-KEM prekeys: its register
 * and replenish bodies carry none (signed again without them) and the bundles it fetches come
 * without `kemPreKey`, which it ignores, so it sets up and answers X3DH only (`options.fetch`, if
 * given, sees what it sends and answers in between). Key transparency is
 * off for it, as the leaves of PQXDH peers commit a KEM key its bundles no longer show.
 */
export async function classicMember(
  server: string,
  address: string,
  options: Partial<ClientOptions> = {},
): Promise<TestClient> {
  const store = memoryStore();
  const inner = options.fetch ?? globalThis.fetch;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    const method = init?.method ?? "GET";
    if (method === "POST" && /^\/v1\/keys\/(register|replenish)$/.test(url.pathname)) {
      const state = await store.load();
      const fields = JSON.parse(String(init?.body)) as Record<string, unknown>;
      delete fields.signature;
      for (const name of KEM_UPLOADS) delete fields[name];
      const seed = decodeBase64(state?.identity.signingSeed ?? "", 32);
      const body = JSON.stringify(signedBody(method, url.pathname, fields, seed));
      return inner(input, { ...init, body });
    }
    const response = await inner(input, init);
    if (!response.ok || !url.pathname.startsWith("/v1/keys/bundle/")) return response;
    return rewriteJson(response, ({ kemPreKey: _, ...bundle }) => bundle);
  };
  return member(server, address, { kt: "off", ...options, store, fetch });
}
