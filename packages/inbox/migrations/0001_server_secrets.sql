CREATE TABLE "server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"secret" "bytea" NOT NULL,
	"created_at" bigint NOT NULL
);
