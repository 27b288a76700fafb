CREATE TABLE "bridge_instances" (
	"instance_id" text PRIMARY KEY NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "bridge_presence" (
	"instance_id" text NOT NULL,
	"address" text NOT NULL,
	"bridges" integer NOT NULL,
	CONSTRAINT "bridge_presence_instance_id_address_pk" PRIMARY KEY("instance_id","address")
);

CREATE INDEX "bridge_presence_address_idx" ON "bridge_presence" USING btree ("address");
