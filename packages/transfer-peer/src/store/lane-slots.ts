import { createHash } from "node:crypto";
import { open, readFile } from "node:fs/promises";

/** How far a stream's lanes are, as the file store keeps it beside the stream's JSON record. */
export interface LaneProgress {
  /** Counts the writes: the newer of the two slots is the one with the higher version. */
  version: bigint;
  lastSeqAcked: readonly bigint[];
  updatedAt: number;
}

const HASH_BYTES = 32;

/**
 * The lanes of a stream in two fixed-size slots of one file, written in turn in place: a write
 * is one pwrite and one fdatasync, where an atomic rewrite of a file (a new file, a rename, the
 * directory synced) cost three journal commits per chunk, the file store's whole share of a
 * chunk's time. A torn write spoils only the slot it was writing, which its SHA-256 shows; the
 * other still holds the previous version, the last one acknowledged.
 *
 * A slot: u64be version || u64be updatedAt || u64be lastSeqAcked per lane || SHA-256 of those.
 */
export function slotBytes(lanes: number): number {
  return 16 + 8 * lanes + HASH_BYTES;
}

/** A new slots file at `path` (mode 0600) holding `progress` in both slots, synced. */
export async function createLaneSlots(path: string, progress: LaneProgress): Promise<void> {
  const slot = encodeSlot(progress);
  const handle = await open(path, "wx", 0o600);
  try {
    await handle.write(Buffer.concat([slot, slot]), 0);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** The newer of the two slots that is whole; throws when neither is. */
export async function readLaneSlots(path: string, lanes: number): Promise<LaneProgress> {
  const bytes = await readFile(path);
  const size = slotBytes(lanes);
  const slots = [0, 1]
    .map((index) => decodeSlot(bytes.subarray(index * size, (index + 1) * size), lanes))
    .filter((slot) => slot !== undefined);
  const newest = slots.sort((a, b) => (a.version < b.version ? 1 : -1))[0];
  if (newest === undefined) throw new Error(`${path} holds no whole lane slot`);
  return newest;
}

/** Writes `progress` over the older slot (the one its version picks) and syncs it. */
export async function writeLaneSlots(path: string, progress: LaneProgress): Promise<void> {
  const slot = encodeSlot(progress);
  const handle = await open(path, "r+");
  try {
    await handle.write(slot, 0, slot.length, Number(progress.version % 2n) * slot.length);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

function encodeSlot({ version, updatedAt, lastSeqAcked }: LaneProgress): Buffer {
  const slot = Buffer.alloc(slotBytes(lastSeqAcked.length));
  slot.writeBigUInt64BE(version, 0);
  slot.writeBigUInt64BE(BigInt(updatedAt), 8);
  for (const [lane, seq] of lastSeqAcked.entries()) slot.writeBigUInt64BE(seq, 16 + 8 * lane);
  const body = slot.subarray(0, slot.length - HASH_BYTES);
  createHash("sha256").update(body).digest().copy(slot, body.length);
  return slot;
}

function decodeSlot(slot: Buffer, lanes: number): LaneProgress | undefined {
  if (slot.length !== slotBytes(lanes)) return undefined;
  const body = slot.subarray(0, slot.length - HASH_BYTES);
  const hash = createHash("sha256").update(body).digest();
  if (!hash.equals(slot.subarray(body.length))) return undefined;
  return {
    version: slot.readBigUInt64BE(0),
    updatedAt: Number(slot.readBigUInt64BE(8)),
    lastSeqAcked: Array.from({ length: lanes }, (_, lane) => slot.readBigUInt64BE(16 + 8 * lane)),
  };
}
