CREATE TABLE IF NOT EXISTS "kt_cosignatures" (
	"witness" text PRIMARY KEY NOT NULL,
	"tree_size" bigint NOT NULL,
	"line" text NOT NULL,
	"cosigned_at" bigint NOT NULL
);
