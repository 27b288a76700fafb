CREATE TABLE "device_lists" (
	"account" text NOT NULL,
	"version" bigint NOT NULL,
	"message" "bytea" NOT NULL,
	"signature" "bytea" NOT NULL,
	"list_hash" "bytea" NOT NULL,
	"signer" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "device_lists_account_version_pk" PRIMARY KEY("account","version")
);
