import type { SvcClient } from "@svc/client";
import { SvcError } from "@svc/protocol";

/**
 * `work` (a send to `to`), whose 404 SVC_NOT_REGISTERED names `to`:1 when `to` has no device
 * suffix and `to`:1 holds one-time prekeys: "bob is not registered; did you mean bob:1?". Asked
 * only after that failure, of GET /v1/keys/count, which uses nothing up.
 */
export async function withRegistrationHint<T>(
  client: SvcClient,
  to: string,
  work: Promise<T>,
): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof SvcError) || error.code !== "SVC_NOT_REGISTERED" || to.includes(":")) {
      throw error;
    }
    const candidate = `${to}:1`;
    const count = await client.api.keysCount(candidate).then(
      (answer) => answer.count,
      () => 0,
    );
    if (count === 0) throw error;
    throw new SvcError(error.code, `${to} is not registered; did you mean ${candidate}?`, {
      status: error.status,
      cause: error,
    });
  }
}
