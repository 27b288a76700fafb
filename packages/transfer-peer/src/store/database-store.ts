import { type Database, plainBytes, preparedRows } from "@svc/db";
import type { StreamStatus } from "@svc/protocol/transfer";
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import { transferLanes, transferStreams } from "../schema.js";
import {
  type StreamRecord,
  streamExists,
  type TransferStore,
  UNFINISHED,
} from "./transfer-store.js";

export interface DatabaseTransferStoreOptions {
  /** A database migrated with transferMigrations (see @svc/db's openStorage). */
  db: Database;
  now?: () => number;
}

// Prepared: every accepted chunk runs it. The lane row moves only from seq - 1 and only while the
// stream is active; the stream's updated_at moves with it.
const ADVANCE_LANE = `with advanced as (
    update transfer_lanes as l set last_seq_acked = $3::numeric
    from transfer_streams as s
    where l.stream_id = $1::text and l.lane_id = $2::integer
      and l.last_seq_acked = $3::numeric - 1
      and s.stream_id = l.stream_id and s.status = 'active'
    returning l.stream_id
  )
  update transfer_streams set updated_at = $4::bigint
  where stream_id = (select stream_id from advanced)
  returning 1 as advanced`;

/** lane_id is a PostgreSQL integer; no stream has this many lanes. */
const MAX_INTEGER = 2 ** 31 - 1;

/** Stream state in the transfer_streams and transfer_lanes tables (PGlite or PostgreSQL). */
export function databaseTransferStore(options: DatabaseTransferStoreOptions): TransferStore {
  const { db } = options;
  const now = options.now ?? Date.now;
  return {
    async create(stream) {
      await db.transaction(async (tx) => {
        const inserted = await tx
          .insert(transferStreams)
          .values({
            streamId: stream.streamId,
            sender: stream.sender,
            name: stream.name,
            version: stream.version,
            cipher: stream.cipher,
            size: stream.size,
            sha256: stream.sha256 ?? null,
            chunkBytes: stream.chunkBytes,
            key: stream.key,
            status: stream.status,
            createdAt: stream.createdAt,
            updatedAt: stream.updatedAt,
          })
          .onConflictDoNothing({ target: transferStreams.streamId })
          .returning({ streamId: transferStreams.streamId });
        if (inserted.length === 0) throw streamExists(stream.streamId);
        await tx.insert(transferLanes).values(
          stream.lastSeqAcked.map((seq, laneId) => ({
            streamId: stream.streamId,
            laneId,
            lastSeqAcked: seq.toString(),
          })),
        );
      });
    },

    async get(streamId) {
      const [row] = await db
        .select()
        .from(transferStreams)
        .where(eq(transferStreams.streamId, streamId));
      if (!row) return undefined;
      const lanes = await db
        .select({ lastSeqAcked: transferLanes.lastSeqAcked })
        .from(transferLanes)
        .where(eq(transferLanes.streamId, streamId))
        .orderBy(asc(transferLanes.laneId));
      const { sha256, ...rest } = row;
      const record: StreamRecord = {
        ...rest,
        ...(sha256 === null ? {} : { sha256 }),
        key: new Uint8Array(plainBytes(row.key)),
        lastSeqAcked: lanes.map((lane) => BigInt(lane.lastSeqAcked)),
      };
      return record;
    },

    async advanceLane(streamId, laneId, seq) {
      if (!Number.isInteger(laneId) || laneId < 0 || laneId > MAX_INTEGER) return false;
      const rows = await preparedRows(db, ADVANCE_LANE, [streamId, laneId, seq.toString(), now()]);
      return rows.length > 0;
    },

    async setStatus(streamId: string, from: StreamStatus, to: StreamStatus) {
      const updated = await db
        .update(transferStreams)
        .set({ status: to, updatedAt: now() })
        .where(and(eq(transferStreams.streamId, streamId), eq(transferStreams.status, from)))
        .returning({ streamId: transferStreams.streamId });
      return updated.length > 0;
    },

    async rekey(streamId, key) {
      const updated = await db
        .update(transferStreams)
        .set({ key, updatedAt: now() })
        .where(
          and(
            eq(transferStreams.streamId, streamId),
            eq(transferStreams.version, 2),
            inArray(transferStreams.status, [...UNFINISHED]),
          ),
        )
        .returning({ streamId: transferStreams.streamId });
      return updated.length > 0;
    },

    async removeIdle(streamId, idleSince) {
      // The lanes' rows go with it (on delete cascade).
      const removed = await db
        .delete(transferStreams)
        .where(
          and(
            eq(transferStreams.streamId, streamId),
            inArray(transferStreams.status, [...UNFINISHED]),
            lte(transferStreams.updatedAt, idleSince),
          ),
        )
        .returning({ streamId: transferStreams.streamId });
      return removed.length > 0;
    },
  };
}
