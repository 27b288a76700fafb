import { ClientError, type ReceivedMessage, SvcClient } from "@svc/client";
import { openDatabase, requestResult, STATES } from "../page/database.js";
import { History } from "../page/history.js";
import { idbStore } from "../page/idb-store.js";
import { receivedEntry } from "../page/received.js";

/**
 * The chat's service worker. A push is a wake-up from the server ({"v":1,"pending":n}: nothing
 * else, so nothing of it is read): messages wait in an inbox of this browser while no page holds
 * a bridge. The worker fetches them with the page's own store and history in IndexedDB (the
 * client's exactly-once hand-over: decrypted and saved, written to the history, then acked),
 * and shows one notification per message.
 */
declare const self: ServiceWorkerGlobalScope;

/** What a notification says when a message came but cannot be read here. */
const UNREADABLE = "New message";

self.addEventListener("install", () => {
  void self.skipWaiting();
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("push", (event) => event.waitUntil(wake()));
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(showPage(event.notification.data as NoteData | undefined));
});

interface NoteData {
  address?: string;
}

interface Note {
  title: string;
  tag: string;
  address: string;
}

async function wake(): Promise<void> {
  // A page on screen has its bridge (the server sends no wake-up then) and fetches itself.
  if (await pageShown()) return;
  const notes: Note[] = [];
  let unreadable = false;
  for (const address of await identities()) {
    const fetched = await fetchFor(address);
    notes.push(...fetched.notes);
    unreadable ||= fetched.unreadable;
  }
  for (const note of notes) {
    await self.registration.showNotification(note.title, {
      tag: note.tag,
      data: { address: note.address } satisfies NoteData,
    });
  }
  if (notes.length === 0 && unreadable) {
    await self.registration.showNotification(UNREADABLE, { tag: "unreadable", data: {} });
  }
}

/**
 * Fetches `address`'s inbox as the page would, each message in the history before its ack. A
 * page that has this address open holds its store's lock (STORE_LOCKED here): that page fetches,
 * and the worker leaves the address alone, so no blob is consumed twice.
 */
async function fetchFor(address: string): Promise<{ notes: Note[]; unreadable: boolean }> {
  const store = idbStore(address);
  const history = new History(address);
  let unreadable = false;
  let client: SvcClient | undefined;
  try {
    client = await SvcClient.open({
      server: self.location.origin,
      store,
      onError: () => {
        unreadable = true;
      },
    });
    const opened = client;
    const messages = await opened.receive({
      onMessage: async (message) => {
        await history.put(await receivedEntry(opened, message));
      },
    });
    return { notes: messages.filter((m) => !m.sent).map((m) => noteOf(address, m)), unreadable };
  } catch (error) {
    const locked = error instanceof ClientError && error.code === "STORE_LOCKED";
    return { notes: [], unreadable: !locked };
  } finally {
    await (client ? client.close() : store.close()).catch(() => undefined);
    await history.close();
  }
}

const decoder = new TextDecoder();

function noteOf(address: string, message: ReceivedMessage): Note {
  return {
    title: `${message.from}: ${decoder.decode(message.plaintext)}`,
    tag: message.msgId,
    address,
  };
}

/** The addresses with an identity in this browser (registered: init finished). */
async function identities(): Promise<string[]> {
  const database = await openDatabase();
  try {
    const store = database.transaction(STATES, "readonly").objectStore(STATES);
    const [keys, states] = await Promise.all([
      requestResult(store.getAllKeys()),
      requestResult(store.getAll()),
    ]);
    return keys.filter(
      (key, index): key is string =>
        typeof key === "string" && (states[index] as { registered?: boolean }).registered === true,
    );
  } finally {
    database.close();
  }
}

async function pageShown(): Promise<boolean> {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  return windows.some((window) => window.visibilityState === "visible");
}

/** A click on a notification: the page if one is open, else a new one on the address. */
async function showPage(data: NoteData | undefined): Promise<void> {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows[0];
  if (open) {
    await open.focus();
    return;
  }
  const hash = data?.address === undefined ? "" : `#${encodeURIComponent(data.address)}`;
  await self.clients.openWindow(`/${hash}`);
}
