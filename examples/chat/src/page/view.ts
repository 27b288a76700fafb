import type { Conversation, HistoryEntry } from "./history.js";

const STATE_WORDS: Record<HistoryEntry["state"], string> = {
  sending: "sending…",
  sent: "sent",
  failed: "failed",
  received: "received",
};

/** The conversation list, latest first, the open one marked. */
export function renderConversations(
  list: HTMLUListElement,
  conversations: Conversation[],
  current: string | undefined,
  open: (id: string) => void,
): void {
  list.replaceChildren(
    ...conversations.map((conversation) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = conversation.id;
      button.dataset.conversation = conversation.id;
      button.setAttribute("aria-current", String(conversation.id === current));
      button.addEventListener("click", () => open(conversation.id));
      item.append(button);
      return item;
    }),
  );
}

/** One message: its text, then when, who (a copy from another device of mine), and its state. */
export function renderMessage(entry: HistoryEntry, retry: (id: string) => void): HTMLLIElement {
  const item = document.createElement("li");
  item.className = entry.direction;
  item.dataset.id = entry.id;
  item.dataset.state = entry.state;
  item.classList.toggle("post-quantum", entry.postQuantum);
  item.title = entry.postQuantum
    ? "post-quantum session (PQXDH: X25519 and ML-KEM-1024)"
    : "classic session (X3DH: X25519 only)";
  const text = document.createElement("div");
  text.className = "text";
  text.textContent = entry.text;
  const meta = document.createElement("div");
  meta.className = "meta";
  const time = document.createElement("time");
  const at = new Date(entry.at);
  time.dateTime = at.toISOString();
  time.textContent = at.toLocaleTimeString([], {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  time.title = at.toLocaleString();
  const from = document.createElement("span");
  from.className = "from";
  // Who sent it, unless it was this device: the peer's device, or another device of mine.
  from.textContent =
    entry.direction === "in" ? entry.from : entry.sentCopy ? `from your ${entry.from}` : "";
  const state = document.createElement("span");
  state.className = "state";
  state.textContent = STATE_WORDS[entry.state];
  meta.append(time);
  if (from.textContent !== "") meta.append(from);
  meta.append(state);
  if (entry.state === "failed") {
    const again = document.createElement("button");
    again.type = "button";
    again.className = "retry quiet";
    again.textContent = "Retry";
    again.addEventListener("click", () => retry(entry.id));
    meta.append(again);
  }
  item.append(text, meta);
  return item;
}
