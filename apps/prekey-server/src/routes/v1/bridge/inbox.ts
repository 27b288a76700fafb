import type { EnvelopeSource } from "@svc/bridge-hub";
import type { CommittedDeposit } from "@svc/inbox";

/** What bridges need from the inbox store: backlogs, bound keys and deposit events. */
export interface BridgeInbox extends EnvelopeSource {
  bindingKey(address: string): Promise<Uint8Array | undefined>;
  /** Called after each deposit through this instance commits; returns the unsubscribe. */
  onDeposit(listener: (deposit: CommittedDeposit) => void): () => void;
}
