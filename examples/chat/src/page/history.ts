import {
  CONVERSATION_INDEX,
  CONVERSATIONS,
  completion,
  MESSAGES,
  OWNER_INDEX,
  openDatabase,
  requestResult,
} from "./database.js";

/** Where a message stands: being sent, deposited, refused or unreachable, or received. */
export type MessageState = "sending" | "sent" | "failed" | "received";

/** One message of a conversation, as the page shows it after any reload. */
export interface HistoryEntry {
  /** The msgId of a received message; a random id of the page's own for one it sends. */
  id: string;
  /** The conversation: the peer's account (or the peer's address when it has none). */
  conversation: string;
  direction: "in" | "out";
  /** The device that sent it (this one, another of this account, or the peer's). */
  from: string;
  /** Whom it was sent to: the peer's account or device, or this account for a message received. */
  to: string;
  text: string;
  /** When it was sent (by this page) or received (by the server), in ms since the epoch. */
  at: number;
  state: MessageState;
  /** A copy of a message another device of this account sent. */
  sentCopy: boolean;
  /** Whether its session was set up with PQXDH (ML-KEM-1024 and X25519). */
  postQuantum: boolean;
}

export interface Conversation {
  id: string;
  /** Where a message typed in it goes: the account, or the device address it was opened with. */
  target: string;
  /** The time of its latest message (or of its opening), for the order of the list. */
  lastAt: number;
}

type Keyed<T> = T & { owner: string };

/**
 * The history of one identity (`owner`, its address) in the page's IndexedDB, beside its client
 * state: every message is written before the page shows it, and a received one before it is
 * acked, so a reload shows what was shown and nothing twice (entries are keyed by id).
 */
export class History {
  readonly #owner: string;
  readonly #database: Promise<IDBDatabase>;

  constructor(owner: string) {
    this.#owner = owner;
    this.#database = openDatabase();
  }

  /**
   * Writes `entry` (replacing the one with its id) and moves its conversation to the top. Its
   * target becomes `target` when given; else a conversation held with an account stays so, and
   * one with a device goes on with the device the entry came from (or, a copy, went to).
   */
  async put(entry: HistoryEntry, target?: string): Promise<Conversation> {
    const database = await this.#database;
    const tx = database.transaction([MESSAGES, CONVERSATIONS], "readwrite", {
      durability: "strict",
    });
    const conversations = tx.objectStore(CONVERSATIONS);
    const known = (await requestResult(conversations.get([this.#owner, entry.conversation]))) as
      | Keyed<Conversation>
      | undefined;
    const seen = entry.sentCopy ? entry.to : entry.from;
    const conversation: Conversation = {
      id: entry.conversation,
      target: target ?? (known?.target === entry.conversation ? known.target : seen),
      lastAt: Math.max(known?.lastAt ?? 0, entry.at),
    };
    tx.objectStore(MESSAGES).put({ ...entry, owner: this.#owner });
    conversations.put({ ...conversation, owner: this.#owner });
    await completion(tx);
    return conversation;
  }

  /** The entry with `id`, if any. */
  async get(id: string): Promise<HistoryEntry | undefined> {
    const database = await this.#database;
    const store = database.transaction(MESSAGES, "readonly").objectStore(MESSAGES);
    const found = (await requestResult(store.get([this.#owner, id]))) as
      | Keyed<HistoryEntry>
      | undefined;
    return found && withoutOwner(found);
  }

  /**
   * Opens a conversation (or finds it: its target changes only to the account itself, so that a
   * conversation held with an account is not narrowed to one device by typing its address).
   */
  async open(id: string, target: string, at: number): Promise<Conversation> {
    const database = await this.#database;
    const tx = database.transaction(CONVERSATIONS, "readwrite", { durability: "strict" });
    const store = tx.objectStore(CONVERSATIONS);
    const known = (await requestResult(store.get([this.#owner, id]))) as
      | Keyed<Conversation>
      | undefined;
    const conversation = {
      id,
      target: known !== undefined && target !== id ? known.target : target,
      lastAt: known?.lastAt ?? at,
    };
    store.put({ ...conversation, owner: this.#owner });
    await completion(tx);
    return conversation;
  }

  /** The conversations, latest first. */
  async conversations(): Promise<Conversation[]> {
    const database = await this.#database;
    const index = database
      .transaction(CONVERSATIONS, "readonly")
      .objectStore(CONVERSATIONS)
      .index(OWNER_INDEX);
    const all = (await requestResult(index.getAll(this.#owner))) as Keyed<Conversation>[];
    return all
      .map(({ owner: _, ...conversation }) => conversation)
      .sort((a, b) => b.lastAt - a.lastAt);
  }

  /** A conversation's messages, oldest first. */
  async messages(conversation: string): Promise<HistoryEntry[]> {
    const database = await this.#database;
    const index = database
      .transaction(MESSAGES, "readonly")
      .objectStore(MESSAGES)
      .index(CONVERSATION_INDEX);
    const all = (await requestResult(
      index.getAll([this.#owner, conversation]),
    )) as Keyed<HistoryEntry>[];
    return all.map(withoutOwner).sort((a, b) => a.at - b.at);
  }

  /**
   * Messages left "sending" by a page that went away mid-send: whether they left is unknown, so
   * they are shown failed, with the retry a person can choose.
   */
  async failUnfinished(): Promise<void> {
    const database = await this.#database;
    const tx = database.transaction(MESSAGES, "readwrite", { durability: "strict" });
    const store = tx.objectStore(MESSAGES);
    const all = (await requestResult(store.getAll())) as Keyed<HistoryEntry>[];
    for (const entry of all) {
      if (entry.owner === this.#owner && entry.state === "sending") {
        store.put({ ...entry, state: "failed" });
      }
    }
    await completion(tx);
  }

  async close(): Promise<void> {
    (await this.#database).close();
  }
}

function withoutOwner({ owner: _, ...entry }: Keyed<HistoryEntry>): HistoryEntry {
  return entry;
}
