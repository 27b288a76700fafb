import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, encodeBase64 } from "@svc/canonical";
import type { DepositRequest } from "@svc/protocol";
import type { Party } from "./party.js";
import { signedBodyBy } from "./signer.js";
import { type Answer, jsonRequest, type Transport } from "./transport.js";

/** The signedAt of the shared signing vectors; tests pin the server clock to it. */
export const T0 = 1_763_780_000_000;

/** A ratchet-envelope-shaped blob (leading 0x02) of `size` bytes, distinct per `n`. */
export function envelope(n: number, size = 16): Uint8Array {
  const bytes = new Uint8Array(Math.max(size, 5));
  bytes[0] = 0x02;
  new DataView(bytes.buffer).setUint32(1, n);
  return bytes;
}

export const msgIdOf = (bytes: Uint8Array): string => bytesToHex(sha256(bytes));

export const depositPath = (address: string): string => `/v1/inbox/${address}`;

/** Builds and signs inbox requests the way a client would, and sends them on `transport`. */
export class InboxClient<A extends Answer = Response> {
  constructor(
    private readonly transport: Transport<A>,
    private readonly now: () => number = () => T0,
  ) {}

  async send(method: string, path: string, body: unknown): Promise<A> {
    return this.transport(path, jsonRequest(method, body));
  }

  signed(method: string, path: string, fields: Record<string, unknown>, signer: Party) {
    return signedBodyBy(signer.signer, method, path, { signedAt: this.now(), ...fields });
  }

  register(address: string, owner: Party, fields: Record<string, unknown> = {}) {
    const path = "/v1/inbox/register";
    const body = { address, signingPublicKey: owner.publicKey, ...fields };
    return this.send("POST", path, this.signed("POST", path, body, owner));
  }

  depositBody(address: string, sender: Party, bytes: Uint8Array, fields = {}) {
    const deposit: Omit<DepositRequest, "signature" | "signedAt"> = {
      msgId: msgIdOf(bytes),
      ciphertext: encodeBase64(bytes),
      expiresAt: this.now() + 3_600_000,
      senderPublicKey: sender.publicKey,
    };
    return this.signed("POST", depositPath(address), { ...deposit, ...fields }, sender);
  }

  deposit(address: string, sender: Party, bytes: Uint8Array, fields = {}) {
    const body = this.depositBody(address, sender, bytes, fields);
    return this.send("POST", depositPath(address), body);
  }

  /** POST /v1/deposits of `deposits`, each body signed as for its own POST /v1/inbox/{address}. */
  depositBatch(deposits: Array<{ address: string; body: Record<string, unknown> }>) {
    return this.send("POST", "/v1/deposits", { deposits });
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
