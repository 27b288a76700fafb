import type { AdapterSink, BridgeAdapter, PresenceSync } from "./adapter.js";

/** A single server instance (for example on embedded PGlite): every hub event stays in memory. */
export function inProcessAdapter(): BridgeAdapter {
  let sink: AdapterSink | undefined;
  const counts = new Map<string, number>();
  return {
    async start(adapterSink) {
      sink = adapterSink;
    },
    async announceDeposit() {}, // no other instance
    async syncPresence(address, bridges, at): Promise<PresenceSync> {
      const before = counts.get(address) ?? 0;
      if (bridges === 0) counts.delete(address);
      else counts.set(address, bridges);
      if (before > 0 === bridges > 0) return {};
      const crossing = { address, online: bridges > 0, at };
      sink?.presence(crossing);
      return { crossing };
    },
    async online(addresses) {
      return new Set(addresses.filter((address) => (counts.get(address) ?? 0) > 0));
    },
    async heartbeat() {
      return { crossings: [], reregistered: false };
    },
    async close() {
      sink = undefined;
    },
  };
}
