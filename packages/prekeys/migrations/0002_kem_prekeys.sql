ALTER TABLE "identities" ADD COLUMN "kem_last_resort_key_id" bigint;
ALTER TABLE "identities" ADD COLUMN "kem_last_resort_key" bytea;
ALTER TABLE "identities" ADD COLUMN "kem_last_resort_signature" bytea;
ALTER TABLE "identities" ADD CONSTRAINT "identities_kem_last_resort_whole" CHECK (
	("kem_last_resort_key_id" IS NULL) = ("kem_last_resort_key" IS NULL)
	AND ("kem_last_resort_key" IS NULL) = ("kem_last_resort_signature" IS NULL)
);

CREATE TABLE "one_time_kem_prekeys" (
	"id" bigserial NOT NULL,
	"address" text NOT NULL,
	"key_id" bigint NOT NULL,
	"public_key" bytea NOT NULL,
	"signature" bytea NOT NULL,
	CONSTRAINT "one_time_kem_prekeys_address_id_pk" PRIMARY KEY("address","id")
);

ALTER TABLE "one_time_kem_prekeys" ADD CONSTRAINT "one_time_kem_prekeys_address_identities_address_fk" FOREIGN KEY ("address") REFERENCES "public"."identities"("address") ON DELETE cascade ON UPDATE no action;

CREATE UNIQUE INDEX "one_time_kem_prekeys_address_key_id_idx" ON "one_time_kem_prekeys" USING btree ("address","key_id");
