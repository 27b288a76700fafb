CREATE TABLE "push_subscriptions" (
	"address" text NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" "bytea" NOT NULL,
	"auth" "bytea" NOT NULL,
	"expires_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"woken_at" bigint,
	CONSTRAINT "push_subscriptions_address_endpoint_pk" PRIMARY KEY("address","endpoint")
);
