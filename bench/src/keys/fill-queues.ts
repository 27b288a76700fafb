import {
  type Answer,
  jsonRequest,
  randomKemPreKeys,
  randomOneTimePreKeys,
  registerFields,
  replenishBody,
  signedBodyBy,
  type TestIdentity,
  type Transport,
  testIdentity,
} from "@svc/test-client";
import { nodeSigner } from "@svc/test-client/node";

/**
 * Registers and replenishes prekey queues for one identity, signing through node:crypto so that
 * the client costs little next to the server it loads.
 */
export class PrekeyQueues {
  readonly #identity: TestIdentity = testIdentity("bench", "bench-keys", nodeSigner);

  constructor(private readonly transport: Transport<Answer>) {}

  /**
   * Registers `count` addresses `<prefix>-<n>`, each with `keysPerAddress` one-time prekeys, and
   * with `kem`, a last-resort ML-KEM key and as many one-time KEM prekeys.
   */
  async fill(
    prefix: string,
    count: number,
    keysPerAddress: number,
    { kem = false } = {},
  ): Promise<string[]> {
    const addresses = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    await Promise.all(
      addresses.map(async (address) => {
        const identity = { ...this.#identity, address };
        await this.register(address, Math.min(100, keysPerAddress), { kem });
        for (let from = 100; from < keysPerAddress; from += 100) {
          const entries = randomOneTimePreKeys(from, 100);
          const body = kem
            ? signedBodyBy(identity.signer, "POST", "/v1/keys/replenish", {
                address,
                oneTimePreKeys: entries,
                kemPreKeys: randomKemPreKeys(identity, from, 100),
                signedAt: Date.now(),
              })
            : replenishBody(identity, Date.now(), entries);
          await this.#post("/v1/keys/replenish", body);
        }
      }),
    );
    return addresses;
  }

  register(address: string, count: number, { kem = false } = {}): Promise<void> {
    const identity = { ...this.#identity, address };
    const path = "/v1/keys/register";
    const fields = {
      ...registerFields(identity, Date.now()),
      oneTimePreKeys: randomOneTimePreKeys(0, count),
      ...(kem
        ? {
            kemLastResortPreKey: randomKemPreKeys(identity, 1_000_000, 1)[0],
            kemPreKeys: randomKemPreKeys(identity, 0, count),
          }
        : {}),
    };
    return this.#post(path, signedBodyBy(identity.signer, "POST", path, fields));
  }

  async #post(path: string, body: Record<string, unknown>): Promise<void> {
    const res = await this.transport(path, jsonRequest("POST", body));
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  }
}
