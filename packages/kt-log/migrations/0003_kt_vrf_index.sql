ALTER TABLE "kt_log" ADD COLUMN "vrf_public_key" bytea;
ALTER TABLE "kt_leaves" ADD COLUMN "opening" bytea;
CREATE TABLE IF NOT EXISTS "kt_vrf" (
	"address" text PRIMARY KEY NOT NULL,
	"vrf_index" bytea NOT NULL,
	"proof" bytea NOT NULL
);
