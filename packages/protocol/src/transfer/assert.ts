import { assertBytes } from "@svc/canonical";
import { STREAM_ID_BYTES } from "./stream-id.js";

/** Input checks of values the caller builds. Mistakes throw TypeError/RangeError naming them. */

const STREAM_KEY_BYTES = 32;
export const MAX_LANE_ID = 0xffff_ffff;
export const MAX_SEQ = 2n ** 64n - 1n;

export function assertStreamKey(name: string, value: unknown): asserts value is Uint8Array {
  assertLength(name, value, STREAM_KEY_BYTES);
}

export function assertStreamIdBytes(name: string, value: unknown): asserts value is Uint8Array {
  assertLength(name, value, STREAM_ID_BYTES);
}

export function assertLaneId(name: string, value: unknown): asserts value is number {
  assertInteger(name, value, MAX_LANE_ID);
}

/** A chunk seq: seqs start at 1 in every lane and are u64. */
export function assertSeq(name: string, value: unknown): asserts value is bigint {
  if (typeof value !== "bigint") throw new TypeError(`${name} must be a bigint`);
  if (value < 1n || value > MAX_SEQ) throw new RangeError(`${name} must be in 1..2^64-1`);
}

export function assertInteger(
  name: string,
  value: unknown,
  max = Number.MAX_SAFE_INTEGER,
  min = 0,
): asserts value is number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer in ${min}..${max}, got ${value}`);
  }
}

function assertLength(name: string, value: unknown, length: number): asserts value is Uint8Array {
  assertBytes(name, value);
  if (value.length !== length) {
    throw new RangeError(`${name} must be ${length} bytes, got ${value.length}`);
  }
}
