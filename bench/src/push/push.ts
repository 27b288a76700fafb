import { createECDH, randomBytes } from "node:crypto";
import {
  encryptWakeUp,
  generateVapidKeys,
  vapidAuthorization,
  vapidPublicKeyBase64Url,
} from "@svc/web-push";
import webPush from "web-push";
import { rate } from "../harness/measure.js";
import { type BenchRow, printTable } from "../harness/table.js";

/** BENCH_QUICK=1 times a fifth as long: for trying the suite, not for numbers to quote. */
const QUICK = process.env.BENCH_QUICK === "1";
const MS_PER_ROUND = QUICK ? 200 : 1000;
const ROUNDS = 3;

/**
 * What one Web Push wake-up costs the sender before the request: the RFC 8291 body (a fresh
 * ephemeral key, ECDH, HKDF, AES-128-GCM) and the RFC 8292 VAPID header (an ES256 JWT), by
 * @svc/web-push (node:crypto) beside the `web-push` package's same work, in the same run. Each
 * pair alternates round by round; the median round is printed.
 */
export async function pushSuite(): Promise<void> {
  const ua = createECDH("prime256v1");
  ua.generateKeys();
  const auth = randomBytes(16);
  const target = { p256dh: new Uint8Array(ua.getPublicKey()), auth: new Uint8Array(auth) };
  const subscription = {
    endpoint: "https://push.example.net/wpush/v2/gAAAAABsvc",
    keys: { p256dh: ua.getPublicKey("base64url"), auth: auth.toString("base64url") },
  };
  const vapid = generateVapidKeys();
  const subject = "mailto:ops@example.org";
  const vapidDetails = {
    subject,
    publicKey: vapidPublicKeyBase64Url(vapid),
    privateKey: Buffer.from(vapid.privateKey).toString("base64url"),
  };
  const plaintext = new TextEncoder().encode('{"v":1,"pending":3}');
  const payload = Buffer.from(plaintext);
  const audience = new URL(subscription.endpoint).origin;

  const work = {
    ours: () => {
      encryptWakeUp(plaintext, target);
      vapidAuthorization(subscription.endpoint, vapid, subject, Date.now());
    },
    theirs: () => {
      webPush.generateRequestDetails(subscription, payload, {
        vapidDetails,
        TTL: 86_400,
        urgency: "high",
        topic: "svc-wake",
      });
    },
    oursBody: () => encryptWakeUp(plaintext, target),
    theirsBody: () =>
      webPush.encrypt(subscription.keys.p256dh, subscription.keys.auth, payload, "aes128gcm"),
    oursVapid: () => vapidAuthorization(subscription.endpoint, vapid, subject, Date.now()),
    theirsVapid: () =>
      webPush.getVapidHeaders(
        audience,
        subject,
        vapidDetails.publicKey,
        vapidDetails.privateKey,
        "aes128gcm",
      ),
  };
  const rates = medianRates(work);
  const pair = (
    what: string,
    ours: keyof typeof work,
    theirs: keyof typeof work,
    note: string,
  ): BenchRow[] => {
    const baseline = `web-push 3.6.7: ${what}`;
    return [
      { name: baseline, opsPerSec: rates[theirs], note: `its ${note}` },
      { name: `@svc/web-push: ${what}`, opsPerSec: rates[ours], baseline, note: "node:crypto" },
    ];
  };
  printTable(
    "push: one wake-up's sender-side crypto, one thread (ops/s = messages per wall second)",
    [
      ...pair("body + VAPID header", "ours", "theirs", "generateRequestDetails"),
      ...pair("aes128gcm body", "oursBody", "theirsBody", "encrypt"),
      ...pair("VAPID Authorization", "oursVapid", "theirsVapid", "getVapidHeaders"),
    ],
    { latency: false },
  );
}

/** Each function's rate, rounds alternating between them, the median round of each. */
function medianRates<K extends string>(work: Record<K, () => unknown>): Record<K, number> {
  const names = Object.keys(work) as K[];
  const samples = new Map<K, number[]>(names.map((name) => [name, []]));
  for (const name of names) rate(work[name], MS_PER_ROUND / 4);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples.get(name)?.push(rate(work[name], MS_PER_ROUND));
  }
  return Object.fromEntries(
    names.map((name) => {
      const sorted = (samples.get(name) ?? []).sort((a, b) => a - b);
      return [name, sorted[Math.floor(sorted.length / 2)] ?? 0];
    }),
  ) as Record<K, number>;
}
