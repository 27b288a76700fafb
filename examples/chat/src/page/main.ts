import {
  ClientError,
  type ReceivedMessage,
  type Subscription,
  SvcClient,
  type TransportName,
} from "@svc/client";
import { accountOf } from "@svc/protocol";
import { type Conversation, History, type HistoryEntry } from "./history.js";
import { idbStore } from "./idb-store.js";
import { plainProblem } from "./plain-errors.js";
import { isPostQuantum, receivedEntry } from "./received.js";
import { renderConversations, renderMessage } from "./view.js";
import { enableWakeUps } from "./wake-ups.js";

/**
 * The chat page: one identity (a device) per address, its keys, sessions and history in
 * IndexedDB. The address in use is kept in the URL's fragment, so that a reload opens it again.
 */
const page = {
  setup: element("setup", HTMLElement),
  identity: element("identity", HTMLFormElement),
  address: element("address", HTMLInputElement),
  linkForm: element("link-form", HTMLFormElement),
  linkAddress: element("link-address", HTMLInputElement),
  linkCodeInput: element("link-code-input", HTMLInputElement),
  linkStart: element("link-start", HTMLButtonElement),
  who: element("who", HTMLElement),
  me: element("me", HTMLElement),
  transport: element("transport", HTMLOutputElement),
  push: element("push", HTMLOutputElement),
  banner: element("banner", HTMLElement),
  status: element("status", HTMLElement),
  dismiss: element("dismiss", HTMLButtonElement),
  chat: element("chat", HTMLElement),
  newConversation: element("new-conversation", HTMLFormElement),
  peer: element("peer", HTMLInputElement),
  conversations: element("conversations", HTMLUListElement),
  devicesLine: element("devices-line", HTMLElement),
  devices: element("devices", HTMLElement),
  linkDevice: element("link-device", HTMLButtonElement),
  linkInfo: element("link-info", HTMLElement),
  linkCode: element("link-code", HTMLOutputElement),
  linkResult: element("link-result", HTMLElement),
  back: element("back", HTMLButtonElement),
  peerName: element("peer-name", HTMLElement),
  messages: element("messages", HTMLUListElement),
  empty: element("empty", HTMLElement),
  compose: element("compose", HTMLFormElement),
  message: element("message", HTMLInputElement),
  send: element("send", HTMLButtonElement),
};

const TRANSPORT_NAMES: Record<TransportName, string> = {
  ws: "WebSocket",
  sse: "SSE",
  poll: "long-poll",
};

/** The codes of a failure to reach the server (see plain-errors.ts). */
const OUTAGE_CODES = new Set(["NETWORK", "TIMEOUT", "SVC_UNAVAILABLE"]);

const encoder = new TextEncoder();

/** The identity open in this page, once one is. */
interface Device {
  client: SvcClient;
  history: History;
  address: string;
  subscription: Subscription | undefined;
  /** The conversation shown, if any. */
  open: string | undefined;
}

let device: Device | undefined;
/** Renders run one after the other, so an older one never paints over a newer one. */
let rendering: Promise<void> = Promise.resolve();

page.identity.addEventListener("submit", (event) => {
  event.preventDefault();
  void start(page.address.value, { kind: "new" });
});
page.linkForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void start(page.linkAddress.value, { kind: "link", code: page.linkCodeInput.value });
});
page.dismiss.addEventListener("click", clearProblem);
page.newConversation.addEventListener("submit", (event) => {
  event.preventDefault();
  void openTyped(page.peer.value);
});
page.compose.addEventListener("submit", (event) => {
  event.preventDefault();
  void sendTyped();
});
page.back.addEventListener("click", () => {
  if (device) device.open = undefined;
  void render();
});
page.linkDevice.addEventListener("click", () => void linkNewDevice());

const remembered = decodeURIComponent(location.hash.slice(1));
if (remembered !== "") {
  page.address.value = remembered;
  void start(remembered, { kind: "reopen" });
}

type Start = { kind: "new" } | { kind: "reopen" } | { kind: "link"; code: string };

/**
 * Opens the identity of `address`: made and registered on first use (a new account, whose
 * device list this device starts), linked to an existing account by a code, or (a reload) the
 * one the store holds. Then shows the conversations and starts live delivery.
 */
async function start(input: string, how: Start): Promise<void> {
  // The server's normalization (NFKC) of the address, so that one identity has one store.
  const address = input.trim().normalize("NFKC");
  page.setup.inert = true;
  const linkLabel = page.linkStart.textContent;
  if (how.kind === "link") page.linkStart.textContent = "Waiting for your other device…";
  const store = idbStore(address);
  let client: SvcClient | undefined;
  try {
    client = await SvcClient.open({ server: location.origin, store, onError: showProblem });
    if (how.kind === "new") await newAccount(client, address);
    if (how.kind === "link") await client.linkDevice(address, how.code);
    page.me.textContent = (await client.whoami()).address;
  } catch (error) {
    showProblem(error);
    await (client ? client.close() : store.close()).catch(() => undefined);
    page.setup.inert = false;
    page.linkStart.textContent = linkLabel;
    return;
  }
  clearProblem();
  history.replaceState(null, "", `#${encodeURIComponent(address)}`);
  const kept = new History(address);
  await kept.failUnfinished();
  device = { client, history: kept, address, subscription: undefined, open: undefined };
  page.setup.hidden = true;
  page.who.hidden = false;
  // Only a device of an account (<account>:<device>) has a device list to link others to.
  page.linkDevice.hidden = accountOf(address) === undefined;
  page.chat.hidden = false;
  listen(device);
  void offerWakeUps(client);
  await render();
  await showDevices(device, true);
}

/** Wake-ups for when the page is closed; the indicator says whether this browser has them. */
async function offerWakeUps(client: SvcClient): Promise<void> {
  page.push.hidden = false;
  page.push.textContent = "wake-ups: setting up…";
  const state = await enableWakeUps(client);
  page.push.dataset.state = state.kind;
  page.push.textContent = `wake-ups: ${state.words}`;
}

/**
 * init, then the account's device list (version 1, this device alone) so that people can write
 * to the account, not only to this device.
 */
async function newAccount(client: SvcClient, address: string): Promise<void> {
  try {
    await client.init(address);
  } catch (error) {
    if (!(error instanceof ClientError && error.code === "IDENTITY_EXISTS")) throw error;
  }
  if (accountOf(address) === undefined || client.rememberedDeviceList() !== undefined) return;
  await client.startDeviceList();
}

/** Live delivery: WebSocket, else SSE, else long-poll, reconnecting; the indicator follows it. */
function listen(current: Device): void {
  setConnection("connecting");
  const subscription = current.client.subscribe((message) => receive(current, message), {
    onTransport: (transport) => {
      setConnection("connected", transport);
      // The server is back: a sentence saying it cannot be reached would no longer be true.
      if (OUTAGE_CODES.has(page.banner.dataset.code ?? "")) clearProblem();
    },
    onDisconnect: () => setConnection("reconnecting"),
    onError: showProblem,
  });
  current.subscription = subscription;
  subscription.closed.then(
    () => {
      if (current.subscription === subscription) setConnection("stopped");
    },
    (error: unknown) => {
      if (current.subscription === subscription) setConnection("stopped");
      showProblem(error);
    },
  );
}

/** Stops live delivery until `task` ends (a link reads the inbox itself meanwhile). */
async function withoutDelivery<T>(current: Device, task: () => Promise<T>): Promise<T> {
  const subscription = current.subscription;
  current.subscription = undefined;
  subscription?.close();
  await subscription?.closed.catch(() => undefined);
  setConnection("paused");
  try {
    return await task();
  } finally {
    listen(current);
  }
}

/**
 * A message for this device, or a copy of one another device of this account sent: written to
 * the history before it is acked (this returns), so a reload shows it, and shows it once.
 */
async function receive(current: Device, message: ReceivedMessage): Promise<void> {
  await current.history.put(await receivedEntry(current.client, message));
  await render();
}

/** Opens the conversation with what was typed: an account (bob) or a device (bob:1). */
async function openTyped(input: string): Promise<void> {
  const current = device;
  if (current === undefined) return;
  const typed = input.trim().normalize("NFKC");
  if (typed === "") return;
  const id = accountOf(typed) ?? typed;
  await current.history.open(id, typed, Date.now());
  current.open = id;
  page.peer.value = "";
  await render();
  page.message.focus();
}

async function sendTyped(): Promise<void> {
  const current = device;
  const conversation = current?.open;
  const text = page.message.value;
  if (current === undefined || conversation === undefined || text === "") return;
  const entry: HistoryEntry = {
    id: crypto.randomUUID(),
    conversation,
    direction: "out",
    from: current.address,
    to: conversation,
    text,
    at: Date.now(),
    state: "sending",
    sentCopy: false,
    postQuantum: false,
  };
  page.message.value = "";
  await deliver(current, entry);
}

async function retry(id: string): Promise<void> {
  const current = device;
  const entry = await current?.history.get(id);
  if (current === undefined || entry === undefined || entry.state !== "failed") return;
  await deliver(current, { ...entry, at: Date.now() });
}

/** Shows `entry` sending, sends it, and shows (and keeps) whether it went. */
async function deliver(current: Device, entry: HistoryEntry): Promise<void> {
  const conversation = (await current.history.conversations()).find(
    (known) => known.id === entry.conversation,
  );
  const target = conversation?.target ?? entry.conversation;
  await current.history.put({ ...entry, state: "sending" }, target);
  await render();
  let done: HistoryEntry;
  try {
    const to = await destination(current.client, conversation ?? { id: target, target });
    const result = await current.client.send(to, encoder.encode(entry.text));
    const first = result.deliveries?.find((delivery) => !delivery.copy)?.address ?? to;
    done = {
      ...entry,
      to,
      state: "sent",
      postQuantum: await isPostQuantum(current.client, first),
    };
    clearProblem();
  } catch (error) {
    done = { ...entry, state: "failed" };
    showProblem(error, entry.conversation);
  }
  await current.history.put(done, target);
  await render();
}

/**
 * Where a message of `conversation` goes: its account when the account has a device list (every
 * device of it, and a copy to each other device of mine), else the device it was held with. A
 * list that fails verification throws (DEVICE_LIST_INVALID), and nothing is sent.
 */
async function destination(
  client: SvcClient,
  conversation: Pick<Conversation, "id" | "target">,
): Promise<string> {
  if (conversation.target === conversation.id) return conversation.id;
  const list = await client.deviceList(conversation.id);
  return list === undefined ? conversation.target : conversation.id;
}

/** "Link a new device": shows a one-time code and waits for the new device to ask with it. */
async function linkNewDevice(): Promise<void> {
  const current = device;
  if (current === undefined) return;
  page.linkDevice.disabled = true;
  page.linkResult.textContent = "";
  try {
    const linked = await withoutDelivery(current, () =>
      current.client.approveLink({
        onCode: (code) => {
          page.linkCode.textContent = code;
          page.linkInfo.hidden = false;
        },
      }),
    );
    page.linkResult.textContent = `Linked ${linked.linked} (device list version ${linked.version}).`;
    clearProblem();
    await showDevices(current, false);
  } catch (error) {
    showProblem(error);
  } finally {
    page.linkInfo.hidden = true;
    page.linkCode.textContent = "";
    page.linkDevice.disabled = false;
  }
}

/**
 * The devices of my account, as its verified list names them: a device I do not know there is
 * one that should not be. The remembered list at once, then (`fetch`) the server's, verified.
 */
async function showDevices(current: Device, fetch: boolean): Promise<void> {
  const account = accountOf(current.address);
  if (account === undefined) return;
  const paint = (list: { devices: Array<{ address: string }> } | undefined) => {
    page.devicesLine.hidden = list === undefined;
    page.devices.textContent = (list?.devices ?? [])
      .map(({ address }) => (address === current.address ? `${address} (this one)` : address))
      .join(", ");
  };
  paint(current.client.rememberedDeviceList());
  if (!fetch) return;
  try {
    paint(await current.client.deviceList(account));
  } catch (error) {
    showProblem(error, "your account");
  }
}

/** Paints the conversation list and the open conversation from the history. */
function render(): Promise<void> {
  rendering = rendering.then(paint, paint);
  return rendering;
}

async function paint(): Promise<void> {
  const current = device;
  if (current === undefined) return;
  const conversations = await current.history.conversations();
  const open = current.open;
  // Read before anything is painted, so that the header and the messages change together.
  const entries = open === undefined ? [] : await current.history.messages(open);
  renderConversations(page.conversations, conversations, open, (id) => {
    current.open = id;
    void render();
  });
  page.chat.classList.toggle("thread-open", open !== undefined);
  page.compose.hidden = open === undefined;
  page.messages.hidden = open === undefined;
  page.empty.hidden = open !== undefined;
  page.peerName.textContent = open ?? "No conversation open";
  const retryEntry = (id: string) => void retry(id);
  page.messages.replaceChildren(...entries.map((entry) => renderMessage(entry, retryEntry)));
  page.messages.scrollTop = page.messages.scrollHeight;
}

type Connection = "connecting" | "connected" | "reconnecting" | "paused" | "stopped";

const CONNECTION_WORDS: Record<Connection, string> = {
  connecting: "connecting…",
  connected: "connected",
  reconnecting: "reconnecting…",
  paused: "paused while linking",
  stopped: "not connected",
};

/** The indicator says "connected" only while a bridge is open, and over which transport. */
function setConnection(state: Connection, transport?: TransportName): void {
  page.transport.dataset.state = state;
  page.transport.textContent =
    transport === undefined
      ? CONNECTION_WORDS[state]
      : `${CONNECTION_WORDS[state]} (${TRANSPORT_NAMES[transport]})`;
}

/** A sentence a person understands in the banner, until the next success or a dismiss. */
function showProblem(error: unknown, peer?: string): void {
  const problem = plainProblem(error, peer);
  page.status.textContent = problem.sentence;
  page.banner.dataset.code = problem.code;
  page.banner.hidden = false;
}

function clearProblem(): void {
  page.status.textContent = "";
  delete page.banner.dataset.code;
  page.banner.hidden = true;
}

function element<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no ${type.name} #${id}`);
  return found;
}
