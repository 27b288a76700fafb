import {
  envelope,
  InboxClient,
  jsonRequest,
  msgIdOf,
  party,
  range,
  registerBody,
  testIdentity,
} from "@svc/test-client";

/** One request of the load and how the server answered it. */
export interface Outcome {
  op: "deposit" | "fetch" | "ack" | "bundle";
  /** HTTP status, or 0 when no answer came (connection refused or reset, timed out). */
  status: number;
  /** The parsed body of an answer that was not 2xx, or the error of a failed request. */
  refusal?: unknown;
  startedAt: number;
  ms: number;
}

/** What the server acknowledged, per recipient: the ground truth to check the database against. */
export interface Ledger {
  /** Deposits answered 2xx. */
  deposited: Set<string>;
  /** Deposits sent, whatever the answer. */
  attempted: Set<string>;
  /** Acks answered 2xx. */
  acked: Set<string>;
}

export interface LoadOptions {
  /** Concurrent workers; each has its own recipient and bundle address. */
  workers: number;
  /** Tag in every address, so that several loads can share one database. */
  label: string;
  /** Bound of each request; longer counts as no answer. */
  requestTimeoutMs?: number;
  /** Pause between a worker's rounds. */
  pauseMs?: number;
}

export const OWNER = party("fault-owner");
export const SENDER = party("fault-sender");

/**
 * Deposits, fetches, acks and bundle fetches against `baseUrl(worker)`, in rounds, until stopped.
 * Every answer is recorded, and so is what each 2xx acknowledged.
 */
export class SteadyLoad {
  readonly outcomes: Outcome[] = [];
  readonly ledgers = new Map<string, Ledger>();
  /** keyIds of the one-time prekeys in 2xx bundle answers, per address. */
  readonly handedOut = new Map<string, number[]>();
  #running = false;
  #workers: Promise<void>[] = [];

  constructor(
    private readonly baseUrl: (worker: number) => string,
    private readonly options: LoadOptions,
  ) {}

  recipient(worker: number): string {
    return `${this.options.label}-inbox-${worker}:1`;
  }

  bundleAddress(worker: number): string {
    return `${this.options.label}-keys-${worker}:1`;
  }

  /** Registers each worker's inbox, and its bundle address with 100 one-time prekeys. */
  async prepare(): Promise<void> {
    for (let worker = 0; worker < this.options.workers; worker++) {
      const inbox = this.#inbox(worker);
      const registered = await inbox.register(this.recipient(worker), OWNER);
      if (registered.status !== 200) throw new Error(`inbox register: ${registered.status}`);
      const identity = testIdentity(this.bundleAddress(worker));
      const res = await fetch(
        `${this.baseUrl(worker)}/v1/keys/register`,
        jsonRequest("POST", registerBody(identity, Date.now(), range(1, 101))),
      );
      if (res.status !== 200) throw new Error(`keys register: ${res.status} ${await res.text()}`);
      this.ledgers.set(this.recipient(worker), {
        deposited: new Set(),
        attempted: new Set(),
        acked: new Set(),
      });
      this.handedOut.set(this.bundleAddress(worker), []);
    }
  }

  start(): void {
    this.#running = true;
    this.#workers = range(0, this.options.workers).map((worker) => this.#run(worker));
  }

  /** Stops after the rounds in flight; resolves when they have ended. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
  }

  /** Outcomes that started in [from, to). */
  between(from: number, to: number): Outcome[] {
    return this.outcomes.filter((o) => o.startedAt >= from && o.startedAt < to);
  }

  #inbox(worker: number): InboxClient {
    const timeout = this.options.requestTimeoutMs ?? 10_000;
    return new InboxClient(
      (path, init) =>
        fetch(`${this.baseUrl(worker)}${path}`, { ...init, signal: AbortSignal.timeout(timeout) }),
      Date.now,
    );
  }

  async #run(worker: number): Promise<void> {
    const recipient = this.recipient(worker);
    const ledger = this.ledgers.get(recipient) as Ledger;
    const handedOut = this.handedOut.get(this.bundleAddress(worker)) as number[];
    const pending: string[] = [];
    let n = worker * 1_000_000;
    while (this.#running) {
      const inbox = this.#inbox(worker);
      const bytes = envelope(n++, 64);
      const msgId = msgIdOf(bytes);
      ledger.attempted.add(msgId);
      const deposit = await this.#record("deposit", () => inbox.deposit(recipient, SENDER, bytes));
      if (deposit.ok) ledger.deposited.add(msgId);

      const fetched = await this.#record("fetch", () => inbox.fetch(recipient, OWNER, {}));
      if (fetched.ok) {
        const { items } = fetched.body as { items: Array<{ msgId: string }> };
        for (const item of items) if (!pending.includes(item.msgId)) pending.push(item.msgId);
      }
      // Ack all but the newest two, so that the inbox always holds something unacknowledged;
      // all but one after a failed fetch, so that acks go on while the server refuses fetches.
      const keep = fetched.ok ? 2 : 1;
      for (const id of pending.splice(0, Math.max(0, pending.length - keep))) {
        if (ledger.acked.has(id)) continue;
        const acked = await this.#record("ack", () => inbox.ack(recipient, OWNER, id));
        if (acked.ok) ledger.acked.add(id);
        else if (acked.status === 0 || acked.status >= 500) pending.push(id); // try again
      }

      const bundle = await this.#record("bundle", () =>
        fetch(`${this.baseUrl(worker)}/v1/keys/bundle/${this.bundleAddress(worker)}`, {
          signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 10_000),
        }),
      );
      const keyId = (bundle.body as { oneTimePreKey?: { keyId: number } } | undefined)
        ?.oneTimePreKey?.keyId;
      if (bundle.ok && keyId !== undefined) handedOut.push(keyId);
      await new Promise((resolve) => setTimeout(resolve, this.options.pauseMs ?? 10));
    }
  }

  async #record(
    op: Outcome["op"],
    send: () => Promise<Response>,
  ): Promise<{ ok: boolean; status: number; body?: unknown }> {
    const startedAt = Date.now();
    const started = performance.now();
    try {
      const res = await send();
      const text = await res.text();
      const body = text === "" ? undefined : (JSON.parse(text) as unknown);
      const ok = res.status >= 200 && res.status < 300;
      const outcome: Outcome = {
        op,
        status: res.status,
        startedAt,
        ms: performance.now() - started,
      };
      if (!ok) outcome.refusal = body;
      this.outcomes.push(outcome);
      return { ok, status: res.status, body };
    } catch (error) {
      const refusal = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.outcomes.push({ op, status: 0, refusal, startedAt, ms: performance.now() - started });
      return { ok: false, status: 0 };
    }
  }
}

/** Every blob still queued for `address`, page by page, in order. */
export async function queuedMsgIds(baseUrl: string, address: string): Promise<string[]> {
  const inbox = new InboxClient((path, init) => fetch(`${baseUrl}${path}`, init), Date.now);
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await inbox.fetch(address, OWNER, { cursor, limit: 100 });
    if (res.status !== 200) throw new Error(`fetch answered ${res.status}`);
    const page = (await res.json()) as {
      items: Array<{ msgId: string }>;
      nextCursor: string | null;
    };
    ids.push(...page.items.map((item) => item.msgId));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ids;
}
