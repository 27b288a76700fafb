import { SvcError } from "@svc/protocol";

/** The only error this package throws for a subscription the server refuses. */
export class PushStoreError extends SvcError {
  override name = "PushStoreError";
}
