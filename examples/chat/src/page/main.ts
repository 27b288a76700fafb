import { ClientError, type ReceivedMessage, SvcClient, type TransportName } from "@svc/client";
import { idbStore } from "./idb-store.js";

/**
 * The chat page: one identity per address, its keys and sessions in IndexedDB. The address in
 * use is kept in the URL's fragment, so that a reload opens the same identity again.
 */
const page = {
  identity: element("identity", HTMLFormElement),
  address: element("address", HTMLInputElement),
  chat: element("chat", HTMLElement),
  me: element("me", HTMLElement),
  transport: element("transport", HTMLOutputElement),
  messages: element("messages", HTMLUListElement),
  compose: element("compose", HTMLFormElement),
  peer: element("peer", HTMLInputElement),
  message: element("message", HTMLInputElement),
  send: element("send", HTMLButtonElement),
  status: element("status", HTMLElement),
};

const TRANSPORT_NAMES: Record<TransportName, string> = {
  ws: "WebSocket",
  sse: "SSE",
  poll: "long-poll",
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

page.identity.addEventListener("submit", (event) => {
  event.preventDefault();
  void start(page.address.value);
});

const remembered = decodeURIComponent(location.hash.slice(1));
if (remembered !== "") {
  page.address.value = remembered;
  void start(remembered);
}

/** Opens the identity of `address` (made and registered on first use), then shows the chat. */
async function start(input: string): Promise<void> {
  // The server's normalization (NFKC) of the address, so that one identity has one store.
  const address = input.trim().normalize("NFKC");
  page.identity.inert = true;
  const store = idbStore(address);
  let client: SvcClient;
  try {
    client = await SvcClient.open({ server: location.origin, store, onError: showProblem });
    page.me.textContent = await openIdentity(client, address);
  } catch (error) {
    showProblem(error);
    await store.close().catch(() => undefined);
    page.identity.inert = false;
    return;
  }
  history.replaceState(null, "", `#${encodeURIComponent(address)}`);
  page.identity.hidden = true;
  page.chat.hidden = false;
  listen(client);
  page.compose.addEventListener("submit", (event) => {
    event.preventDefault();
    void send(client);
  });
}

async function openIdentity(client: SvcClient, address: string): Promise<string> {
  try {
    await client.init(address);
  } catch (error) {
    if (!(error instanceof ClientError && error.code === "IDENTITY_EXISTS")) throw error;
  }
  return (await client.whoami()).address;
}

/** Live delivery: WebSocket, else SSE, else long-poll, reconnecting; the transport is shown. */
function listen(client: SvcClient): void {
  const subscription = client.subscribe(
    async (message: ReceivedMessage) => {
      const postQuantum = await isPostQuantum(client, message.from);
      show("received", `${message.from}: ${decoder.decode(message.plaintext)}`, postQuantum);
    },
    { onTransport: (transport) => (page.transport.textContent = TRANSPORT_NAMES[transport]) },
  );
  subscription.closed.then(
    () => (page.transport.textContent = "closed"),
    (error: unknown) => {
      page.transport.textContent = "refused";
      showProblem(error);
    },
  );
}

async function send(client: SvcClient): Promise<void> {
  const to = page.peer.value.trim();
  const text = page.message.value;
  page.send.disabled = true;
  page.status.textContent = "";
  try {
    await client.send(to, encoder.encode(text));
    show("sent", `to ${to}: ${text}`, await isPostQuantum(client, to));
    page.message.value = "";
  } catch (error) {
    showProblem(error);
  } finally {
    page.send.disabled = false;
  }
}

/** Whether the session a message went over was set up with PQXDH (ML-KEM-1024 and X25519). */
async function isPostQuantum(client: SvcClient, peer: string): Promise<boolean> {
  try {
    return (await client.session(peer)).postQuantum;
  } catch (error) {
    if (error instanceof ClientError && error.code === "NO_SESSION") return false;
    throw error;
  }
}

/** A message line; one over a post-quantum session is marked so (the mark is the page's CSS). */
function show(direction: "sent" | "received", line: string, postQuantum: boolean): void {
  const item = document.createElement("li");
  item.className = direction;
  item.classList.toggle("post-quantum", postQuantum);
  item.title = postQuantum
    ? "post-quantum session (PQXDH: X25519 and ML-KEM-1024)"
    : "classic session (X3DH: X25519 only)";
  item.textContent = line;
  page.messages.append(item);
}

function showProblem(error: unknown): void {
  page.status.textContent = error instanceof Error ? error.message : String(error);
}

function element<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no ${type.name} #${id}`);
  return found;
}
