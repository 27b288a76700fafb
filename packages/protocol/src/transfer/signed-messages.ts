import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@svc/canonical";
import { badRequest } from "../errors.js";
import { MAX_LANE_ID, MAX_SEQ } from "./assert.js";

/** What the three headers of a chunk or state request sign for. */
interface SignedRequest {
  /** X-Svc-Sender-Address. */
  address: string;
  /** X-Svc-Signed-At, Unix epoch ms. */
  signedAt: number;
  /** The path's streamId, as text. */
  streamId: string;
}

/** A chunk request's fields, with the body's SHA-256 given in hex or computed from the body. */
export type SignedChunkRequest = SignedRequest & {
  laneId: number;
  seq: bigint;
} & ({ bodyHash: string } | { body: Uint8Array });

const utf8 = new TextEncoder();
const HASH_HEX = /^[0-9a-f]{64}$/;

/** Lower-hex SHA-256. */
export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/** `chunk\0addr=…\0at=…\0sid=…\0lane=…\0seq=…\0bodyHash=…\0`, signed by the sender. */
export function chunkSignedMessage(request: SignedChunkRequest): Uint8Array {
  const { laneId, seq } = request;
  if (!Number.isInteger(laneId) || laneId < 0 || laneId > MAX_LANE_ID) {
    throw badRequest("laneId must be an integer in 0..2^32-1");
  }
  if (typeof seq !== "bigint" || seq < 0n || seq > MAX_SEQ) {
    throw badRequest("seq must be a u64");
  }
  const bodyHash = "body" in request ? sha256Hex(request.body) : request.bodyHash;
  if (!HASH_HEX.test(bodyHash)) throw badRequest("bodyHash must be 64 lower-hex digits");
  return nulTerminated([
    "chunk",
    ...requestFields(request),
    `lane=${laneId}`,
    `seq=${seq}`,
    `bodyHash=${bodyHash}`,
  ]);
}

/** `control\0addr=…\0at=…\0sid=…\0method=GET\0path=/v1/transfer/<streamId>/state\0`. */
export function stateSignedMessage(request: SignedRequest): Uint8Array {
  return nulTerminated([
    "control",
    ...requestFields(request),
    "method=GET",
    `path=/v1/transfer/${request.streamId}/state`,
  ]);
}

function requestFields({ address, signedAt, streamId }: SignedRequest): string[] {
  if (!Number.isSafeInteger(signedAt)) throw badRequest("signedAt must be an integer");
  return [
    `addr=${text("address", address)}`,
    `at=${signedAt}`,
    `sid=${text("streamId", streamId)}`,
  ];
}

/** A NUL inside a field would let it pass for two: such a field cannot be signed. */
function text(name: string, value: unknown): string {
  if (typeof value !== "string") throw badRequest(`${name} must be a string`);
  if (value.includes("\0")) throw badRequest(`${name} must not contain a NUL byte`);
  return value;
}

function nulTerminated(fields: string[]): Uint8Array {
  return utf8.encode(`${fields.join("\0")}\0`);
}
