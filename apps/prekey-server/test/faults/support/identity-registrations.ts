import { jsonRequest, registerBody, testIdentity } from "@svc/test-client";
import { expect } from "vitest";

/** Registers the new identity `address` (one one-time prekey); the answer's status. */
export async function registerIdentity(baseUrl: string, address: string): Promise<number> {
  const body = registerBody(testIdentity(address), Date.now(), [1]);
  const res = await fetch(`${baseUrl}/v1/keys/register`, jsonRequest("POST", body));
  await res.body?.cancel();
  return res.status;
}

/** Each address's bundle answers 200 with a ktProof that includes it: its leaf is in the log. */
export async function expectEachLogged(baseUrl: string, addresses: string[]): Promise<void> {
  for (const address of addresses) {
    const res = await fetch(`${baseUrl}/v1/keys/bundle/${address}`);
    const body = (await res.json()) as { ktProof?: { body?: { type?: string } } };
    expect(res.status, address).toBe(200);
    expect(body.ktProof?.body?.type, address).toBe("inclusion");
  }
}
