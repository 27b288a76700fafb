import { memoryStore, SvcClient } from "@svc/client";
import { nodeClientOptions } from "@svc/client/node";

/** Clients on memory stores, as the bench opens them: the server's KT log checked as usual. */
export function openClient(server: string): Promise<SvcClient> {
  return SvcClient.open({ server, store: memoryStore(), ...nodeClientOptions() });
}

/**
 * An account with `count` devices (`<account>:1` .. `<account>:<count>`), each on its own client,
 * joined the way users join them: device 1 makes a link code, the new device registers with it
 * and device 1 approves it, one after another. Device 1's client is the first.
 */
export async function linkedAccount(
  server: string,
  account: string,
  count: number,
): Promise<SvcClient[]> {
  const first = await openClient(server);
  await first.init(`${account}:1`);
  const devices = [first];
  for (let n = 2; n <= count; n++) {
    const device = await openClient(server);
    let shown: (code: string) => void = () => {};
    const code = new Promise<string>((resolve) => {
      shown = resolve;
    });
    const approved = first.approveLink({ onCode: (made) => shown(made) });
    await device.linkDevice(`${account}:${n}`, await code);
    await approved;
    devices.push(device);
  }
  return devices;
}

/** A one-device account with a list (version 1, the device alone). */
export async function singleDeviceAccount(server: string, account: string): Promise<SvcClient> {
  const device = await openClient(server);
  await device.init(`${account}:1`);
  await device.startDeviceList();
  return device;
}
