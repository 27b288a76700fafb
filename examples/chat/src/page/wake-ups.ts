import { type PushSubscriptionWire, type SvcClient, SvcError } from "@svc/client";

/** Where wake-ups stand in this browser, for the indicator: never an error banner. */
export interface WakeUpState {
  kind: "on" | "unsupported" | "off" | "unavailable" | "denied" | "failed";
  words: string;
}

/** The service worker: the chat server serves it at the root, so its scope is the whole page. */
export const WORKER_URL = "/sw.js";

/**
 * Registers the service worker (which, on a wake-up, fetches and decrypts with this page's store
 * and shows a notification) and subscribes this browser's push service with the server's VAPID
 * key, then gives the server the subscription for `client`'s address. A browser without a push
 * service (headless Chromium, some privacy-minded builds) keeps the worker and is told so.
 */
export async function enableWakeUps(client: SvcClient): Promise<WakeUpState> {
  if (!("serviceWorker" in navigator && "PushManager" in window)) {
    return { kind: "unsupported", words: "not offered by this browser" };
  }
  try {
    await navigator.serviceWorker.register(WORKER_URL);
    // A push subscription needs the worker active, not only registered.
    const registration = await navigator.serviceWorker.ready;
    const key = await client.pushVapidKey();
    const subscription = await subscribed(registration.pushManager, decodeBase64Url(key));
    await client.subscribePush(subscription.toJSON() as PushSubscriptionWire);
    return { kind: "on", words: "on" };
  } catch (error) {
    return stateOf(error);
  }
}

/** This browser's subscription under `key`: kept, or made again when the server's key changed. */
async function subscribed(manager: PushManager, key: Uint8Array): Promise<PushSubscription> {
  const existing = await manager.getSubscription();
  const existingKey = existing?.options.applicationServerKey;
  if (existing && existingKey && sameBytes(new Uint8Array(existingKey), key)) return existing;
  await existing?.unsubscribe();
  return manager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key as Uint8Array<ArrayBuffer>,
  });
}

function stateOf(error: unknown): WakeUpState {
  if (error instanceof SvcError && error.code === "SVC_FEATURE_DISABLED") {
    return { kind: "off", words: "off on this server" };
  }
  if (error instanceof DOMException && error.name === "NotAllowedError") {
    return { kind: "denied", words: "off (notifications are not allowed for this page)" };
  }
  if (error instanceof DOMException) {
    return { kind: "unavailable", words: "unavailable (this browser has no push service)" };
  }
  const why = error instanceof Error ? error.message : String(error);
  return { kind: "failed", words: `not set up (${why})` };
}

function decodeBase64Url(text: string): Uint8Array {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
