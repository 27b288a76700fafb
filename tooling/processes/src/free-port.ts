import { type AddressInfo, createServer } from "node:net";

/**
 * A port of 127.0.0.1 nothing listens on now (the OS's pick, released at once), for a process
 * that must be told its port before it starts.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
