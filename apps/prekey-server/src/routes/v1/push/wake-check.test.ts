import type { CommittedDeposit, DepositListener } from "@svc/inbox";
import type { PushSubscriptions } from "@svc/push";
import { generateVapidKeys } from "@svc/web-push";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { startWakeUps } from "./wake-ups.js";

/** Subscriptions that record each call and claim nothing. */
function recordedSubscriptions(calls: Array<[string, unknown]>): PushSubscriptions {
  return new Proxy({} as PushSubscriptions, {
    get: (_, name) => async (first: unknown) => {
      calls.push([String(name), first]);
      return name === "claim" ? { claimed: [], coalesced: 0 } : 0;
    },
  });
}

describe("the deposit's own wake check", () => {
  it("sends a deposit to the dispatcher only when a wake-up may be due", async () => {
    const svc = await createTestApp({ SVC_PUSH: "off" });
    const calls: Array<[string, unknown]> = [];
    const listeners: DepositListener[] = [];
    const dispatcher = startWakeUps(svc.services, {
      subscriptions: recordedSubscriptions(calls),
      inbox: {
        onDeposit: (listener) => {
          listeners.push(listener);
          return () => {};
        },
        pending: async (addresses) => new Map(addresses.map((address) => [address, 1])),
      },
      hub: { liveAmong: async () => new Set(), closed: false },
      vapid: generateVapidKeys(),
    });
    const committed = (address: string, wakeUpDue: boolean | null | undefined) => {
      const deposit = { address, receivedAt: 1, previousReceivedAt: 0, notified: false };
      for (const listener of listeners) {
        listener({
          ...deposit,
          ...(wakeUpDue === undefined ? {} : { wakeUpDue }),
          envelope: () => undefined,
        } satisfies CommittedDeposit);
      }
    };
    committed("none-due@example.org", false);
    committed("unsubscribed@example.org", null);
    await dispatcher.idle();
    expect(calls).toEqual([]);
    const coalesced = await svc.services.metrics.pushWakeUps.get();
    expect(coalesced.values.find((v) => v.labels.outcome === "coalesced")?.value).toBe(1);
    committed("due@example.org", true);
    committed("unchecked@example.org", undefined);
    await dispatcher.idle();
    expect(calls).toEqual([["claim", ["due@example.org", "unchecked@example.org"]]]);
  });
});
