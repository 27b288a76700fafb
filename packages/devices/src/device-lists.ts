import { type Ed25519Verifier, equalBytes } from "@svc/canonical";
import { type Database, plainBytes } from "@svc/db";
import {
  checkDeviceListStep,
  type DeviceList,
  DeviceListError,
  deviceListHash,
  deviceListMessage,
  parseDeviceListMessage,
} from "@svc/protocol";
import { and, desc, eq, inArray } from "drizzle-orm";
import { conflict, invalid } from "./errors.js";
import { deviceLists } from "./schema.js";

/** A stored version: the list and the hash the next version chains to. */
export interface StoredDeviceList {
  list: DeviceList;
  listHash: Uint8Array;
}

export interface WriteOptions {
  verifier: Ed25519Verifier;
  /** The registered identity signing key of a device address, or undefined when not registered. */
  identityOf(address: string): Promise<Uint8Array | undefined>;
  now?: number;
}

export interface DeviceLists {
  latest(account: string): Promise<StoredDeviceList | undefined>;
  version(account: string, version: number): Promise<StoredDeviceList | undefined>;
  /** The latest version of each of `accounts` that has a list, in one statement. */
  latestOf(accounts: readonly string[]): Promise<Map<string, StoredDeviceList>>;
  /**
   * Stores `list` as the version after the latest one. Throws DevicesError: SVC_INVALID_DEVICE_LIST
   * for a list that breaks a rule, SVC_DEVICE_LIST_CONFLICT (with currentVersion) when it is not
   * the next version, including when another writer stored that version first.
   */
  write(
    list: DeviceList,
    options: WriteOptions,
  ): Promise<{ version: number; listHash: Uint8Array }>;
}

type Row = typeof deviceLists.$inferSelect;

function stored(row: Row): StoredDeviceList {
  const fields = parseDeviceListMessage(plainBytes(row.message));
  return {
    list: { ...fields, signature: plainBytes(row.signature) },
    listHash: plainBytes(row.listHash),
  };
}

export function createDeviceLists(db: Database): DeviceLists {
  async function latest(account: string): Promise<StoredDeviceList | undefined> {
    const [row] = await db
      .select()
      .from(deviceLists)
      .where(eq(deviceLists.account, account))
      .orderBy(desc(deviceLists.version))
      .limit(1);
    return row ? stored(row) : undefined;
  }

  async function version(account: string, n: number): Promise<StoredDeviceList | undefined> {
    const [row] = await db
      .select()
      .from(deviceLists)
      .where(and(eq(deviceLists.account, account), eq(deviceLists.version, n)));
    return row ? stored(row) : undefined;
  }

  async function latestOf(accounts: readonly string[]): Promise<Map<string, StoredDeviceList>> {
    if (accounts.length === 0) return new Map();
    const rows = await db
      .selectDistinctOn([deviceLists.account])
      .from(deviceLists)
      .where(inArray(deviceLists.account, [...accounts]))
      .orderBy(deviceLists.account, desc(deviceLists.version));
    return new Map(rows.map((row) => [row.account, stored(row)]));
  }

  async function write(list: DeviceList, options: WriteOptions) {
    const current = await latest(list.account);
    const currentVersion = current?.list.version ?? 0;
    if (list.version !== currentVersion + 1) {
      throw conflict(currentVersion, `the next version of the list is ${currentVersion + 1}`);
    }
    try {
      checkDeviceListStep(current?.list, list, options.verifier);
    } catch (error) {
      if (!(error instanceof DeviceListError)) throw error;
      if (error.code === "DEVICE_LIST_BROKEN_CHAIN") throw conflict(currentVersion, error.message);
      throw invalid(error.message);
    }
    for (const device of list.devices) {
      const registered = await options.identityOf(device.address);
      if (registered === undefined) throw invalid(`${device.address} is not registered`);
      if (!equalBytes(registered, device.identitySigningKey)) {
        throw invalid(`${device.address} is registered with another identity signing key`);
      }
    }
    const message = deviceListMessage(list);
    const listHash = deviceListHash(list);
    const inserted = await db
      .insert(deviceLists)
      .values({
        account: list.account,
        version: list.version,
        message,
        signature: list.signature,
        listHash,
        signer: list.signer,
        createdAt: options.now ?? Date.now(),
      })
      .onConflictDoNothing()
      .returning({ version: deviceLists.version });
    if (inserted.length === 0) {
      const winner = (await latest(list.account))?.list.version ?? 0;
      throw conflict(winner, `version ${list.version} was written first by another device`);
    }
    return { version: list.version, listHash };
  }

  return { latest, version, latestOf, write };
}
