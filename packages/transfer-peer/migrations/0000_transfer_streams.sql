CREATE TABLE "transfer_streams" (
	"stream_id" text PRIMARY KEY NOT NULL,
	"sender" text NOT NULL,
	"name" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"chunk_bytes" integer NOT NULL,
	"key" "bytea" NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "transfer_streams_status_check" CHECK ("status" in ('active', 'paused', 'finished', 'aborted'))
);

CREATE TABLE "transfer_lanes" (
	"stream_id" text NOT NULL,
	"lane_id" integer NOT NULL,
	"last_seq_acked" numeric(20, 0) DEFAULT '0' NOT NULL,
	CONSTRAINT "transfer_lanes_stream_id_lane_id_pk" PRIMARY KEY("stream_id","lane_id"),
	CONSTRAINT "transfer_lanes_last_seq_acked_check" CHECK ("last_seq_acked" between 0 and 18446744073709551615)
);

ALTER TABLE "transfer_lanes" ADD CONSTRAINT "transfer_lanes_stream_id_transfer_streams_stream_id_fk" FOREIGN KEY ("stream_id") REFERENCES "public"."transfer_streams"("stream_id") ON DELETE cascade ON UPDATE no action;
