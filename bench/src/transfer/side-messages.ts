import type { SideUsage } from "./side-usage.js";

/** What the parent tells a side when it forks it (argv[2], JSON). */
export interface SideConfig {
  /** The receiver's directory for what it receives. */
  dir: string;
  /** The file to send, its size and SHA-256 (hex). */
  file: string;
  bytes: number;
  sha256: string;
  chunkBytes: number;
  lanes: number;
  /** The prekey server, for the svc sides. */
  server?: string;
  /** Where the receiver listens and, for svc, its address: given to the sender. */
  url?: string;
  address?: string;
}

/** Receiver -> parent, once it listens. */
export interface ReceiverReady {
  kind: "ready";
  url: string;
  address?: string;
}

/** Receiver -> parent, asked "report" after the sender is done. */
export interface ReceiverReport {
  kind: "report";
  /** The received file, which the parent hashes. */
  path: string;
  usage: SideUsage;
}

/** Sender -> parent, once the receiver has acknowledged the last byte. */
export interface SenderDone {
  kind: "done";
  seconds: number;
  usage: SideUsage;
}

export interface SideFailed {
  kind: "failed";
  error: string;
}

export type SideMessage = ReceiverReady | ReceiverReport | SenderDone | SideFailed;
