import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { KtVerifyError } from "@svc/kt-verify";
import {
  checkDeviceListStep,
  type DeviceList,
  DeviceListError,
  type DeviceListFields,
  type DeviceListWire,
  deviceListFromJson,
  deviceListHash,
  SvcError,
} from "@svc/protocol";
import type { SvcApi } from "./api.js";
import { ClientError } from "./errors.js";
import { type KtCheck, WITNESS_RETRY_MS } from "./kt.js";
import { dictionary, type KnownDeviceList, type StoredState } from "./state.js";

/** What reading an account's list needs. */
export interface DeviceListReader {
  api: Pick<SvcApi, "devicesGet" | "devicesVersion">;
  kt: KtCheck;
}

/**
 * `account`'s latest device list, verified and remembered in `state.accounts` (the caller
 * saves): the served version's KT proof (unless KT is off), and the signed chain from the
 * version remembered (from version 1 for an account not seen before), each version between
 * fetched. Undefined when the account has no list (a 404, its absence proof checked when one
 * comes). A lower version than the remembered one, another list under the remembered version,
 * a broken chain, a bad signature or proof, or a 404 for an account seen with a list, is
 * ClientError DEVICE_LIST_INVALID: the server is not to be believed about this account.
 */
export async function readDeviceList(
  reader: DeviceListReader,
  state: StoredState,
  account: string,
): Promise<KnownDeviceList | undefined> {
  const known = state.accounts?.[account];
  let served: { latest: DeviceList; listHash: Uint8Array } | undefined;
  try {
    served = await provenLatest(reader, account, known);
  } catch (error) {
    // The log answered a new tree head before its witnesses cosigned it: ask once more.
    if (!awaitingCosignatures(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, WITNESS_RETRY_MS));
    served = await provenLatest(reader, account, known);
  }
  if (served === undefined) return undefined;
  const { latest, listHash } = served;
  if (known !== undefined && latest.version < known.version) {
    throw invalid(
      account,
      `version ${latest.version} is older than version ${known.version}, seen before`,
    );
  }
  if (known !== undefined && latest.version === known.version) {
    if (encodeBase64(listHash) !== known.listHash) {
      throw invalid(account, `another version ${known.version} than the one seen before`);
    }
    return known;
  }
  await checkChain(reader, account, known, latest);
  const remembered: KnownDeviceList = {
    version: latest.version,
    listHash: encodeBase64(listHash),
    devices: latest.devices.map((device) => ({
      address: device.address,
      identitySigningKey: encodeBase64(device.identitySigningKey),
    })),
  };
  remember(state, account, remembered);
  return remembered;
}

/**
 * The served latest version with its KT proof checked, or undefined for a 404 (its absence proof
 * checked: a server that knows device lists must prove the absence when KT is on; one that
 * predates them answers another 404, taken as no list).
 */
async function provenLatest(
  reader: DeviceListReader,
  account: string,
  known: KnownDeviceList | undefined,
): Promise<{ latest: DeviceList; listHash: Uint8Array } | undefined> {
  let answer: Awaited<ReturnType<SvcApi["devicesGet"]>>;
  try {
    answer = await reader.api.devicesGet(account);
  } catch (error) {
    if (!(error instanceof SvcError && error.status === 404)) throw error;
    if (known !== undefined) {
      throw invalid(
        account,
        `the server says it has no list, but version ${known.version} was seen`,
      );
    }
    const proof = error.extra.ktProof;
    if (proof !== undefined || error.code === "SVC_NO_DEVICE_LIST") {
      await proved(reader, account, undefined, proof);
    }
    return undefined;
  }
  const { ktProof, ...json } = answer;
  const latest = parsed(account, json);
  const listHash = deviceListHash(latest);
  if (latest.account !== account) throw invalid(account, `the server served ${latest.account}'s`);
  await proved(reader, account, listHash, ktProof);
  return { latest, listHash };
}

function awaitingCosignatures(error: unknown): boolean {
  const cause = error instanceof ClientError ? error.cause : undefined;
  return cause instanceof KtVerifyError && cause.code === "KT_WITNESS_QUORUM";
}

/** Keeps `list` as the latest verified version of `account`'s list. */
export function remember(state: StoredState, account: string, list: KnownDeviceList): void {
  state.accounts ??= dictionary();
  state.accounts[account] = list;
}

/** The remembered form of a list this client verified or wrote itself. */
export function knownOf(list: DeviceList): KnownDeviceList {
  return {
    version: list.version,
    listHash: encodeBase64(deviceListHash(list)),
    devices: list.devices.map((device) => ({
      address: device.address,
      identitySigningKey: encodeBase64(device.identitySigningKey),
    })),
  };
}

/** Versions fetched at once while following a chain. */
const CHAIN_BATCH = 16;

/**
 * Every step from the remembered version (or from nothing) up to `latest`: the versions between
 * fetched a batch at a time, each batch checked before the next is asked for (a server claiming
 * a version far ahead is caught at its first step that does not verify), the first of them
 * checked to be the one remembered.
 */
async function checkChain(
  reader: DeviceListReader,
  account: string,
  known: KnownDeviceList | undefined,
  latest: DeviceList,
): Promise<void> {
  let previous: DeviceList | undefined;
  for (let from = known?.version ?? 1; from <= latest.version; from += CHAIN_BATCH) {
    const to = Math.min(from + CHAIN_BATCH, latest.version + 1);
    const batch = await Promise.all(
      Array.from({ length: to - from }, (_, i) => versionOf(reader, account, from + i, latest)),
    );
    for (const next of batch) {
      if (previous === undefined && known !== undefined) {
        if (encodeBase64(deviceListHash(next)) !== known.listHash) {
          throw invalid(account, `another version ${known.version} than the one seen before`);
        }
      } else {
        try {
          checkDeviceListStep(previous, next);
        } catch (error) {
          if (!(error instanceof DeviceListError)) throw error;
          throw invalid(
            account,
            `version ${next.version}: ${error.message} (${error.code})`,
            error,
          );
        }
      }
      previous = next;
    }
  }
}

/** Version `version` of the chain: `latest` itself, or fetched. */
async function versionOf(
  reader: DeviceListReader,
  account: string,
  version: number,
  latest: DeviceList,
): Promise<DeviceList> {
  if (version === latest.version) return latest;
  const list = parsed(account, await reader.api.devicesVersion(account, version));
  if (list.version !== version) {
    throw invalid(account, `version ${version} was answered with version ${list.version}`);
  }
  return list;
}

async function proved(
  reader: DeviceListReader,
  account: string,
  listHash: Uint8Array | undefined,
  ktProof: unknown,
): Promise<void> {
  try {
    await reader.kt.verifyDeviceList(account, listHash, ktProof);
  } catch (error) {
    if (!(error instanceof KtVerifyError)) throw error;
    throw invalid(
      account,
      `its key-transparency proof fails (${error.code}): ${error.message}`,
      error,
    );
  }
}

function parsed(account: string, json: DeviceListWire): DeviceList {
  try {
    return deviceListFromJson(json);
  } catch (error) {
    if (!(error instanceof DeviceListError)) throw error;
    throw invalid(account, error.message, error);
  }
}

export function invalid(account: string, why: string, cause?: unknown): ClientError {
  return new ClientError(
    "DEVICE_LIST_INVALID",
    `the device list of ${account} is refused: ${why}`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * The fields of the version after `current` of `account`'s list, with `devices` (sorted here)
 * and `signer`, for the signer to sign.
 */
export function nextListFields(
  account: string,
  current: KnownDeviceList,
  devices: KnownDeviceList["devices"],
  signer: string,
): DeviceListFields {
  return {
    account,
    version: current.version + 1,
    previousHash: decodeBase64(current.listHash, 32),
    devices: [...devices]
      .sort((a, b) => (a.address < b.address ? -1 : 1))
      .map((device) => ({
        address: device.address,
        identitySigningKey: decodeBase64(device.identitySigningKey, 32),
      })),
    signer,
  };
}
