import { badRequest, parseDecimalU64 } from "@svc/protocol";
import { TRANSFER_HEADERS } from "@svc/protocol/transfer";
import type { Context } from "hono";

const U32 = /^(0|[1-9][0-9]{0,9})$/;

/** X-Svc-Lane-Id (u32) and X-Svc-Seq (decimal u64) of a chunk request; 400 unless both are. */
export function readLaneHeaders(c: Context): { laneId: number; seq: bigint } {
  const lane = c.req.header(TRANSFER_HEADERS.laneId) ?? "";
  const laneId = U32.test(lane) ? Number(lane) : Number.NaN;
  if (!(laneId <= 0xffff_ffff)) {
    throw badRequest(`${TRANSFER_HEADERS.laneId} must be an integer from 0 to 2^32 - 1`);
  }
  const seq = parseDecimalU64(c.req.header(TRANSFER_HEADERS.seq) ?? "");
  if (seq === undefined) throw badRequest(`${TRANSFER_HEADERS.seq} must be a decimal u64`);
  return { laneId, seq };
}
