import { generateKeyPairSync, sign as nodeSign, randomBytes } from "node:crypto";
import { decodeBase64Url, encodeBase64, signedBodyMessage } from "@svc/canonical";

/** Signs keys requests with one identity key (node:crypto, so the client costs little). */
export class KeysClient {
  readonly #privateKey;
  readonly #identitySigningKey: string;
  readonly #signedPreKey: { keyId: number; publicKey: string; signature: string };

  constructor(readonly url: string) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    this.#privateKey = privateKey;
    this.#identitySigningKey = encodeBase64(
      decodeBase64Url(String(publicKey.export({ format: "jwk" }).x)),
    );
    const spk = randomBytes(32);
    this.#signedPreKey = {
      keyId: 1,
      publicKey: encodeBase64(spk),
      signature: encodeBase64(nodeSign(null, spk, privateKey)),
    };
  }

  /** Registers `count` addresses `<prefix>-<n>`, each with `keysPerAddress` one-time prekeys. */
  async fillQueues(prefix: string, count: number, keysPerAddress: number): Promise<string[]> {
    const addresses = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    await Promise.all(
      addresses.map(async (address) => {
        await this.register(address, Math.min(100, keysPerAddress));
        for (let from = 100; from < keysPerAddress; from += 100) {
          await this.send("/v1/keys/replenish", { address, oneTimePreKeys: prekeys(from, 100) });
        }
      }),
    );
    return addresses;
  }

  register(address: string, count: number): Promise<void> {
    return this.send("/v1/keys/register", {
      address,
      identitySigningKey: this.#identitySigningKey,
      identityDHKey: encodeBase64(randomBytes(32)),
      signedPreKey: this.#signedPreKey,
      oneTimePreKeys: prekeys(0, count),
    });
  }

  async send(path: string, fields: Record<string, unknown>): Promise<void> {
    const body = { ...fields, signedAt: Date.now() };
    const message = signedBodyMessage("POST", path, body);
    const signature = encodeBase64(nodeSign(null, message, this.#privateKey));
    const res = await fetch(`${this.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...body, signature }),
    });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  }
}

/** `count` one-time prekeys with keyIds from `from`. */
export function prekeys(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    keyId: from + i,
    publicKey: encodeBase64(randomBytes(32)),
  }));
}
