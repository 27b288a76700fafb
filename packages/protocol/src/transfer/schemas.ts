import * as v from "valibot";
import { DECIMAL_U64_PATTERN } from "../decimal.js";
import { OkResponse, text } from "../schemas/fields.js";
import { STREAM_ID_PATTERN } from "./stream-id.js";

/** Headers of chunk and state requests (and `X-Svc-Sender-Address` alone on control). */
export const TRANSFER_HEADERS = {
  senderAddress: "X-Svc-Sender-Address",
  signedAt: "X-Svc-Signed-At",
  signature: "X-Svc-Signature",
  laneId: "X-Svc-Lane-Id",
  seq: "X-Svc-Seq",
} as const;

const decimalU64 = (field: string) =>
  v.pipe(text(field), v.regex(DECIMAL_U64_PATTERN, `${field} must be a decimal u64`));
const streamId = v.pipe(
  text("streamId"),
  v.regex(STREAM_ID_PATTERN, "streamId must be 22 characters of base64url"),
);
const laneId = v.pipe(
  v.number("laneId must be an integer"),
  v.safeInteger("laneId must be an integer"),
  v.minValue(0, "laneId must not be negative"),
  v.maxValue(0xffff_ffff, "laneId must fit in 32 bits"),
);

export const STREAM_STATUSES = ["active", "paused", "finished", "aborted"] as const;
export type StreamStatus = (typeof STREAM_STATUSES)[number];

/**
 * The transfer wire versions: 1, ChaCha20-Poly1305 chunks and the file's SHA-256 in the start
 * message; 2, AES-256-GCM chunks, the SHA-256 in the finish message and a key per send attempt.
 */
export const TRANSFER_VERSIONS = [1, 2] as const;
export type TransferVersion = (typeof TRANSFER_VERSIONS)[number];

/**
 * The chunk AEADs: a version 1 stream's is ChaCha20-Poly1305; a version 2 start names either
 * (`cipher`, AES-256-GCM when absent), so that each peer seals with what is fastest for it.
 */
export const CHUNK_AEADS = ["chacha20-poly1305", "aes-256-gcm"] as const;
export type ChunkAead = (typeof CHUNK_AEADS)[number];

/**
 * `address`: the identity the receiver serves, so that a sender aimed at another learns it.
 * `versions`: the transfer wire versions it takes; absent from a receiver that knows only 1.
 */
export const TransferHealthResponse = v.object({
  ok: v.boolean(),
  address: v.optional(v.pipe(text("address"), v.maxLength(1024, "address is too long"))),
  versions: v.optional(
    v.pipe(
      v.array(v.pipe(v.number(), v.safeInteger(), v.minValue(1))),
      v.maxLength(16, "versions lists too many"),
    ),
  ),
});
export const ControlResponse = OkResponse;

export const ChunkAck = v.object({ ok: v.boolean(), lastSeqAcked: decimalU64("lastSeqAcked") });

export const ResumeState = v.object({
  streamId,
  status: v.picklist(STREAM_STATUSES),
  lanes: v.array(v.object({ laneId, lastSeqAcked: decimalU64("lastSeqAcked") })),
});

const sha256Hex = v.pipe(
  text("sha256"),
  v.regex(/^[0-9a-f]{64}$/, "sha256 must be 64 lower-hex digits"),
);
const positive = (field: string) =>
  v.pipe(
    v.number(`${field} must be an integer`),
    v.safeInteger(`${field} must be an integer`),
    v.minValue(1, `${field} must be at least 1`),
  );

/** A stream key: base64 of 32 bytes. */
const streamKey = v.pipe(text("key"), v.length(44, "key must be 32 bytes of base64"));
const startFields = {
  type: v.literal("start"),
  streamId,
  name: text("name"),
  size: v.pipe(v.number("size must be an integer"), v.safeInteger(), v.minValue(0)),
  lanes: positive("lanes"),
  chunkBytes: positive("chunkBytes"),
  key: streamKey,
};

/**
 * The plaintext of a control envelope: JSON whose `type` names the transition it asks for. A
 * start's `version` (absent: 1) fixes where the file's SHA-256 comes (in a version 1 start, in a
 * version 2 finish) and whether the start may name its cipher (version 2). `rekey` (version 2
 * only) replaces the key.
 */
export const ControlMessage = v.variant("type", [
  v.variant("version", [
    v.strictObject({ ...startFields, version: v.optional(v.literal(1)), sha256: sha256Hex }),
    v.strictObject({
      ...startFields,
      version: v.literal(2),
      cipher: v.optional(
        v.picklist(CHUNK_AEADS, "cipher must be chacha20-poly1305 or aes-256-gcm"),
      ),
    }),
  ]),
  v.strictObject({ type: v.literal("pause"), streamId }),
  v.strictObject({ type: v.literal("resume"), streamId }),
  v.strictObject({ type: v.literal("finish"), streamId, sha256: v.optional(sha256Hex) }),
  v.strictObject({ type: v.literal("abort"), streamId, reason: v.optional(text("reason")) }),
  v.strictObject({ type: v.literal("rekey"), streamId, key: streamKey }),
]);

export type ChunkAck = v.InferOutput<typeof ChunkAck>;
export type ResumeState = v.InferOutput<typeof ResumeState>;
export type ControlMessage = v.InferOutput<typeof ControlMessage>;
