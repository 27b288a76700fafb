CREATE TABLE "inbox_blobs" (
	"address" text NOT NULL,
	"msg_id" text NOT NULL,
	"ciphertext" "bytea" NOT NULL,
	"sender_key" "bytea" NOT NULL,
	"sender" text NOT NULL,
	"received_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "inbox_blobs_address_msg_id_pk" PRIMARY KEY("address","msg_id")
);
--> statement-breakpoint
CREATE TABLE "inbox_registrations" (
	"address" text PRIMARY KEY NOT NULL,
	"signing_key" "bytea" NOT NULL,
	"last_received_at" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
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
--> statement-breakpoint
CREATE TABLE "one_time_prekeys" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"key_id" bigint NOT NULL,
	"public_key" "bytea" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "inbox_blobs" ADD CONSTRAINT "inbox_blobs_address_inbox_registrations_address_fk" FOREIGN KEY ("address") REFERENCES "public"."inbox_registrations"("address") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "one_time_prekeys" ADD CONSTRAINT "one_time_prekeys_address_identities_address_fk" FOREIGN KEY ("address") REFERENCES "public"."identities"("address") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "inbox_blobs_address_received_at_idx" ON "inbox_blobs" USING btree ("address","received_at");--> statement-breakpoint
CREATE INDEX "inbox_blobs_expires_at_idx" ON "inbox_blobs" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "one_time_prekeys_address_key_id_idx" ON "one_time_prekeys" USING btree ("address","key_id");--> statement-breakpoint
CREATE INDEX "one_time_prekeys_address_id_idx" ON "one_time_prekeys" USING btree ("address","id");