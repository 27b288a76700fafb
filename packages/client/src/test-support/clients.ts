import { type ClientOptions, type KeyStore, memoryStore, SvcClient } from "../index.js";
import { nodeClientOptions } from "../node/index.js";
import { afterThisTest } from "./server.js";

const utf8 = new TextEncoder();
const text = new TextDecoder();

export const bytes = (value: string): Uint8Array => utf8.encode(value);
export const str = (value: Uint8Array): string => text.decode(value);

/** A client on `server`, closed after the test; errors it reports are collected in `errors`. */
export async function testClient(
  server: string,
  options: Partial<ClientOptions> = {},
): Promise<TestClient> {
  const errors: unknown[] = [];
  const store = options.store ?? memoryStore();
  const client = await SvcClient.open({
    server,
    ...nodeClientOptions(),
    onError: (error) => errors.push(error),
    ...options,
    store,
  });
  afterThisTest(() => client.close());
  return Object.assign(client, { errors, store });
}

/** A client with what it reported to onError, and its store. */
export type TestClient = SvcClient & { errors: unknown[]; store: KeyStore };

/** A registered client for `address`. */
export async function member(
  server: string,
  address: string,
  options: Partial<ClientOptions> = {},
): Promise<TestClient> {
  const client = await testClient(server, options);
  await client.init(address);
  return client;
}
