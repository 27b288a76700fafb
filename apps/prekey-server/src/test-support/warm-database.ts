import { migrations } from "@svc/server-schema";

/**
 * The first test database of a worker is migrated from scratch, which can take longer than a
 * test's timeout on a busy machine; tests files call this in `beforeAll` (hook timeout) instead.
 */
export async function warmTestDatabase(
  createTestStorage: (options: { migrations: typeof migrations }) => Promise<{
    close(): Promise<void>;
  }>,
): Promise<void> {
  await (await createTestStorage({ migrations })).close();
}
