CREATE TABLE "identities" (
	"address" text PRIMARY KEY NOT NULL,
	"signing_key" "bytea" NOT NULL,
	"dh_key" "bytea" NOT NULL,
	"signed_prekey_id" bigint NOT NULL,
	"signed_prekey" "bytea" NOT NULL,
	"signed_prekey_signature" "bytea" NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);

CREATE TABLE "one_time_prekeys" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"key_id" bigint NOT NULL,
	"public_key" "bytea" NOT NULL
);

ALTER TABLE "one_time_prekeys" ADD CONSTRAINT "one_time_prekeys_address_identities_address_fk" FOREIGN KEY ("address") REFERENCES "public"."identities"("address") ON DELETE cascade ON UPDATE no action;

CREATE UNIQUE INDEX "one_time_prekeys_address_key_id_idx" ON "one_time_prekeys" USING btree ("address","key_id");

CREATE INDEX "one_time_prekeys_address_id_idx" ON "one_time_prekeys" USING btree ("address","id");
