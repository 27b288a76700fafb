CREATE TABLE "inbox_registrations" (
	"address" text PRIMARY KEY NOT NULL,
	"signing_key" "bytea" NOT NULL,
	"last_received_at" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);

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

ALTER TABLE "inbox_blobs" ADD CONSTRAINT "inbox_blobs_address_inbox_registrations_address_fk" FOREIGN KEY ("address") REFERENCES "public"."inbox_registrations"("address") ON DELETE cascade ON UPDATE no action;

CREATE UNIQUE INDEX "inbox_blobs_address_received_at_idx" ON "inbox_blobs" USING btree ("address","received_at");

CREATE INDEX "inbox_blobs_expires_at_idx" ON "inbox_blobs" USING btree ("expires_at");
