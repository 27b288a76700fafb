import { createHash } from "node:crypto";
import { encodeBase64 } from "@svc/canonical";
import {
  type PreparedRequest,
  registerFields,
  replenishBody,
  signedBodyBy,
} from "@svc/test-client";
import type { Population, PrekeyEntry, User } from "./population.js";
import { SeededRandom } from "./random.js";
import { INITIAL_PREKEYS, REPLENISH_KEYS, type TimedOp } from "./schedule.js";

/** How long a signed body is reused (the server accepts signedAt within 5 minutes). */
const RESIGN_AFTER_MS = 60_000;
const FETCH_LIMIT = 100;

/** A deposit signed ahead, with the recipient's ack of it, signed ahead too. */
export interface PreparedDeposit {
  msgId: string;
  recipient: User;
  request: PreparedRequest;
  ack: PreparedRequest;
}

export interface PreparedRegister {
  user: User;
  keys: PreparedRequest;
  inbox: PreparedRequest;
  prekeys: PrekeyEntry[];
}

/** An operation with its requests signed before the clock starts, where that can be done. */
export type PreparedOp = TimedOp & {
  deposit?: PreparedDeposit;
  register?: PreparedRegister;
  replenish?: { request: PreparedRequest; prekeys: PrekeyEntry[] };
};

/**
 * Builds and signs the requests of a run: a load generator sharing two cores with the servers
 * signs while no clock runs, so that its own CPU is spent on sending and receiving.
 */
export class RequestBook {
  /** The ack of every deposit prepared, by msgId: recipients send it when the blob reaches them. */
  readonly acks = new Map<string, PreparedRequest>();
  readonly #fetches = new Map<number, { request: PreparedRequest; signedAt: number }>();

  constructor(readonly population: Population) {}

  prepare(op: TimedOp): PreparedOp {
    switch (op.kind) {
      case "deposit":
        return { ...op, deposit: this.deposit(op.sender, op.recipient, op.bytes, op.serial) };
      case "register":
        return { ...op, register: this.register(op.user) };
      case "replenish": {
        const user = this.population.user(op.user);
        const prekeys = this.population.prekeys(op.user, op.firstKeyId, REPLENISH_KEYS);
        const body = replenishBody(user.identity, Date.now(), prekeys);
        return { ...op, replenish: { request: post("/v1/keys/replenish", body), prekeys } };
      }
      default:
        return op;
    }
  }

  /** Keys register (with INITIAL_PREKEYS one-time prekeys) and inbox register of `index`. */
  register(index: number): PreparedRegister {
    const user = this.population.user(index);
    const prekeys = this.population.prekeys(index, 0, INITIAL_PREKEYS);
    const fields = { ...registerFields(user.identity, Date.now()), oneTimePreKeys: prekeys };
    const keys = signedBodyBy(user.identity.signer, "POST", "/v1/keys/register", fields);
    const inboxFields = {
      address: user.address,
      signingPublicKey: user.inbox.publicKey,
      signedAt: Date.now(),
    };
    const inbox = signedBodyBy(user.inbox.signer, "POST", "/v1/inbox/register", inboxFields);
    return {
      user,
      keys: post("/v1/keys/register", keys),
      inbox: post("/v1/inbox/register", inbox),
      prekeys,
    };
  }

  deposit(sender: number, recipient: number, size: number, serial: number): PreparedDeposit {
    const from = this.population.user(sender);
    const to = this.population.user(recipient);
    const bytes = new SeededRandom(this.population.seed, `blob:${serial}`).bytes(size);
    bytes[0] = 0x02;
    new DataView(bytes.buffer).setUint32(1, serial);
    const msgId = createHash("sha256").update(bytes).digest("hex");
    const path = `/v1/inbox/${to.address}`;
    const fields = {
      msgId,
      ciphertext: encodeBase64(bytes),
      expiresAt: Date.now() + 3_600_000,
      senderPublicKey: from.inbox.publicKey,
      from: from.address,
      signedAt: Date.now(),
    };
    const ackPath = `${path}/${msgId}`;
    const ackBody = signedBodyBy(to.inbox.signer, "DELETE", ackPath, { signedAt: Date.now() });
    const ack = { method: "DELETE", path: ackPath, body: JSON.stringify(ackBody) };
    this.acks.set(msgId, ack);
    return {
      msgId,
      recipient: to,
      request: post(path, signedBodyBy(from.inbox.signer, "POST", path, fields)),
      ack,
    };
  }

  /** A fetch of `index`'s inbox from its start; one signed body serves many fetches. */
  fetch(index: number): PreparedRequest {
    const cached = this.#fetches.get(index);
    if (cached && Date.now() - cached.signedAt < RESIGN_AFTER_MS) return cached.request;
    const user = this.population.user(index);
    const path = `/v1/inbox/${user.address}/fetch`;
    const signedAt = Date.now();
    const body = signedBodyBy(user.inbox.signer, "POST", path, { limit: FETCH_LIMIT, signedAt });
    const request = post(path, body);
    this.#fetches.set(index, { request, signedAt });
    return request;
  }
}

function post(path: string, body: unknown): PreparedRequest {
  return { method: "POST", path, body: JSON.stringify(body) };
}
