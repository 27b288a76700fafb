import { createHash } from "node:crypto";
import { ed25519KeyPairFromSeed, encodeBase64, signedBody } from "@svc/canonical";

/** The signedAt of the shared signing vectors; tests pin the server clock to it. */
export const T0 = 1_763_780_000_000;

export interface Party {
  seed: Uint8Array;
  /** base64 Ed25519 public key. */
  publicKey: string;
}

export function party(label: string): Party {
  const seed = new Uint8Array(createHash("sha256").update(`inbox-test:${label}`).digest());
  return { seed, publicKey: encodeBase64(ed25519KeyPairFromSeed(seed).publicKey) };
}

/** A ratchet-envelope-shaped blob (leading 0x02) of `size` bytes, distinct per `n`. */
export function envelope(n: number, size = 16): Uint8Array {
  const bytes = new Uint8Array(Math.max(size, 5));
  bytes[0] = 0x02;
  new DataView(bytes.buffer).setUint32(1, n);
  return bytes;
}

export const msgIdOf = (bytes: Uint8Array): string =>
  createHash("sha256").update(bytes).digest("hex");

export type Transport = (path: string, init: RequestInit) => Response | Promise<Response>;

/** Builds and signs inbox requests the way a client would. */
export class InboxClient {
  constructor(
    private readonly transport: Transport,
    private readonly now: () => number = () => T0,
  ) {}

  async send(method: string, path: string, body: unknown): Promise<Response> {
    return this.transport(path, {
      method,
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  signed(method: string, path: string, fields: Record<string, unknown>, signer: Party) {
    return signedBody(method, path, { signedAt: this.now(), ...fields }, signer.seed);
  }

  register(address: string, owner: Party, fields: Record<string, unknown> = {}) {
    const path = "/v1/inbox/register";
    const body = { address, signingPublicKey: owner.publicKey, ...fields };
    return this.send("POST", path, this.signed("POST", path, body, owner));
  }

  depositBody(address: string, sender: Party, bytes: Uint8Array, fields = {}) {
    return this.signed(
      "POST",
      depositPath(address),
      {
        msgId: msgIdOf(bytes),
        ciphertext: encodeBase64(bytes),
        expiresAt: this.now() + 3_600_000,
        senderPublicKey: sender.publicKey,
        ...fields,
      },
      sender,
    );
  }

  deposit(address: string, sender: Party, bytes: Uint8Array, fields = {}) {
    return this.send(
      "POST",
      depositPath(address),
      this.depositBody(address, sender, bytes, fields),
    );
  }

  fetch(address: string, owner: Party, fields: Record<string, unknown> = {}) {
    const path = `/v1/inbox/${address}/fetch`;
    return this.send("POST", path, this.signed("POST", path, fields, owner));
  }

  ack(address: string, owner: Party, msgId: string) {
    const path = `/v1/inbox/${address}/${msgId}`;
    return this.send("DELETE", path, this.signed("DELETE", path, {}, owner));
  }

  unregister(address: string, owner: Party) {
    const path = `/v1/inbox/register/${address}`;
    return this.send("DELETE", path, this.signed("DELETE", path, {}, owner));
  }
}

export const depositPath = (address: string) => `/v1/inbox/${address}`;
