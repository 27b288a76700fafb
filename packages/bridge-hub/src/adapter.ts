import type { DepositNotice } from "@svc/inbox";
import type { PresenceChange } from "./types.js";

/** What an adapter reports to the hub of its instance. */
export interface AdapterSink {
  /** An envelope was committed for `address` on another instance. */
  deposit(address: string): void;
  /** The global bridge count of an address crossed 0<->1 (on this or any other instance). */
  presence(change: PresenceChange): void;
  /** Notifications may have been lost (the listener reconnected): re-query everything. */
  resync(): void;
}

/** The result of writing this instance's live bridge count of one address. */
export interface PresenceSync {
  /** Set when this write made the global count cross 0<->1: this instance reports it. */
  crossing?: PresenceChange;
}

/**
 * How hubs learn of deposits and presence on every instance sharing the database.
 * In-process for a single instance; PostgreSQL LISTEN/NOTIFY plus a presence table for many.
 */
export interface BridgeAdapter {
  start(sink: AdapterSink): Promise<void>;
  /**
   * A NOTIFY that announces a deposit as `announceDeposit` would, for the depositing transaction
   * to send itself: then the other instances hear of it at its commit, and the hub skips
   * `announceDeposit` for a deposit marked `notified`.
   */
  readonly depositNotice?: DepositNotice;
  /** Tells the other instances that `address` has a new envelope (the hub tells its own). */
  announceDeposit(address: string): Promise<void>;
  /** Sets this instance's live bridge count of `address`; announces a global crossing. */
  syncPresence(address: string, bridges: number, at: number): Promise<PresenceSync>;
  /** The addresses among `addresses` with at least one live bridge anywhere. */
  online(addresses: readonly string[]): Promise<Set<string>>;
  /**
   * Periodic upkeep: keeps this instance alive and reaps dead ones. Returns the crossings this
   * instance caused by reaping, and whether it had itself been reaped (then every count written so
   * far is gone and must be written again).
   */
  heartbeat(at: number): Promise<{ crossings: PresenceChange[]; reregistered: boolean }>;
  close(): Promise<void>;
}
