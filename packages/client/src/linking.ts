import { decodeBase64, equalBytes } from "@svc/canonical";
import {
  accountOf,
  type DeviceFrame,
  formatLinkCode,
  LINK_SECRET_SIZE,
  linkApprovalMac,
  linkKey,
  linkRequestMac,
  parseLinkCode,
} from "@svc/protocol";
import { ClientError } from "./errors.js";
import type { KnownDeviceList, StoredState } from "./state.js";

/** A code is good for this long by default, and is void after this many wrong attempts. */
export const LINK_TIMEOUT_MS = 10 * 60_000;
export const LINK_ATTEMPTS = 3;

/** What linking needs from its client; every call runs one change of the state. */
export interface LinkHost {
  state(): StoredState;
  now(): number;
  /** Seals `frame` for `address` and deposits it. */
  sendFrame(address: string, frame: DeviceFrame): Promise<void>;
  /**
   * The next link frame from a device of the own account that `wanted` accepts, taken from the
   * inbox (other messages stay there for receive); ClientError LINK_TIMEOUT after `deadline`.
   */
  nextFrame(
    wanted: (from: string, frame: DeviceFrame) => boolean,
    deadline: number,
  ): Promise<{ from: string; frame: DeviceFrame }>;
  /** The own account's verified list, started (version 1, this device) when it has none. */
  ownList(): Promise<KnownDeviceList>;
  /** `account`'s verified list, read again from the server. */
  readList(account: string): Promise<KnownDeviceList | undefined>;
  /** Writes the next version of the own list with `device` added (its keys replaced). */
  addDevice(device: { address: string; identitySigningKey: string }): Promise<KnownDeviceList>;
  /** The identity keys trusted for `address` (the sender keys of its session). */
  peerKeys(address: string): { identitySigningKey: string; identityDHKey: string } | undefined;
}

export interface LinkOptions {
  /** How long the code is good for (default 10 minutes). */
  timeoutMs?: number;
  /** Called with the code to show, before waiting for the new device. */
  onCode?: (code: string, expiresAt: number) => void | Promise<void>;
  /** Ends the wait: the call rejects with the signal's reason, and the code is void. */
  signal?: AbortSignal;
}

export interface LinkedDevice {
  /** The device added. */
  linked: string;
  /** The list version that added it. */
  version: number;
}

/**
 * The existing device's side: makes a one-time code, waits for the new device's link request,
 * checks that the code's MAC covers its keys (in constant time) and that they are the keys the
 * directory (KT-verified) has for it and its session was set up with, adds it to the list and
 * answers with the approval. A wrong MAC is answered link-refused; the third makes the code void
 * (LINK_REFUSED). No request in time: LINK_TIMEOUT.
 */
export async function answerLinkRequests(
  host: LinkHost,
  options: LinkOptions = {},
): Promise<LinkedDevice> {
  const self = host.state().address;
  const account = accountOf(self);
  if (account === undefined) throw noAccount(self);
  await host.ownList();
  const secret = globalThis.crypto.getRandomValues(new Uint8Array(LINK_SECRET_SIZE));
  const key = linkKey(secret, account);
  const deadline = host.now() + (options.timeoutMs ?? LINK_TIMEOUT_MS);
  const code = formatLinkCode({ device: self.slice(account.length + 1), secret });
  await options.onCode?.(code, deadline);
  for (let wrong = 0; ; ) {
    const { from, frame } = await host.nextFrame(
      (_, next) => next.kind === "link-request",
      deadline,
    );
    if (frame.kind !== "link-request") continue;
    const mac = linkRequestMac(key, {
      address: from,
      identitySigningKey: frame.identitySigningKey,
      identityDHKey: frame.identityDHKey,
    });
    const session = host.peerKeys(from);
    const keysHold =
      session !== undefined &&
      equalBytes(decodeBase64(session.identitySigningKey, 32), frame.identitySigningKey) &&
      equalBytes(decodeBase64(session.identityDHKey, 32), frame.identityDHKey);
    if (!equalBytes(mac, frame.mac) || !keysHold) {
      await host.sendFrame(from, { kind: "link-refused" });
      wrong += 1;
      if (wrong >= LINK_ATTEMPTS) {
        throw new ClientError(
          "LINK_REFUSED",
          `${LINK_ATTEMPTS} link requests came with a wrong code: the code is void`,
        );
      }
      continue;
    }
    const list = await host.addDevice({
      address: from,
      identitySigningKey: session.identitySigningKey,
    });
    const listHash = decodeBase64(list.listHash, 32);
    await host.sendFrame(from, {
      kind: "link-approval",
      version: list.version,
      listHash,
      mac: linkApprovalMac(key, listHash),
    });
    return { linked: from, version: list.version };
  }
}

/**
 * The new device's side, once registered: sends the approving device named by `code` a link
 * request (its keys, MACed with the code's key), waits for the answer and checks the approval's
 * MAC and the account's list (verified, naming this device under its key). LINK_REFUSED when
 * the code was refused or the approval does not prove it; LINK_TIMEOUT when nothing came.
 */
export async function sendLinkRequest(
  host: LinkHost,
  code: string,
  options: { timeoutMs?: number } = {},
): Promise<KnownDeviceList> {
  const state = host.state();
  const account = accountOf(state.address);
  if (account === undefined) throw noAccount(state.address);
  const { device, secret } = parseLinkCode(code);
  const approver = `${account}:${device}`;
  const key = linkKey(secret, account);
  const deadline = host.now() + (options.timeoutMs ?? LINK_TIMEOUT_MS);
  const listed = await host.readList(account);
  if (!listed?.devices.some((entry) => entry.address === approver)) {
    throw new ClientError(
      "LINK_REFUSED",
      `${approver} (the device the code names) is not on ${account}'s device list`,
    );
  }
  const identitySigningKey = decodeBase64(state.identity.identitySigningKey, 32);
  const identityDHKey = decodeBase64(state.identity.identityDHKey, 32);
  await host.sendFrame(approver, {
    kind: "link-request",
    identitySigningKey,
    identityDHKey,
    mac: linkRequestMac(key, { address: state.address, identitySigningKey, identityDHKey }),
  });
  const approverKey = listed.devices.find(
    (entry) => entry.address === approver,
  )?.identitySigningKey;
  if (host.peerKeys(approver)?.identitySigningKey !== approverKey) {
    throw new ClientError(
      "DEVICE_LIST_INVALID",
      `${approver} is listed with other keys than its directory's`,
    );
  }
  const { frame } = await host.nextFrame(
    (from, next) =>
      from === approver && (next.kind === "link-approval" || next.kind === "link-refused"),
    deadline,
  );
  if (frame.kind !== "link-approval") {
    throw new ClientError("LINK_REFUSED", `${approver} refused the link: the code is wrong`);
  }
  if (!equalBytes(frame.mac, linkApprovalMac(key, frame.listHash))) {
    throw new ClientError("LINK_REFUSED", `${approver}'s approval does not prove the code`);
  }
  const list = await host.readList(account);
  const entry = list?.devices.find((d) => d.address === state.address);
  const approved = list?.version === frame.version;
  if (
    list === undefined ||
    list.version < frame.version ||
    (approved && !equalBytes(decodeBase64(list.listHash, 32), frame.listHash)) ||
    entry?.identitySigningKey !== state.identity.identitySigningKey
  ) {
    throw new ClientError(
      "DEVICE_LIST_INVALID",
      `${account}'s device list does not name ${state.address} as ${approver} approved it`,
    );
  }
  return list;
}

function noAccount(address: string): ClientError {
  return new ClientError(
    "NO_ACCOUNT",
    `${address} has no device part (<account>:<device>), so no account to link to`,
  );
}
