CREATE TABLE "kt_leaves" (
	"leaf_index" bigint PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"leaf" "bytea" NOT NULL
);

CREATE TABLE "kt_log" (
	"id" smallint PRIMARY KEY NOT NULL,
	"log_id" "bytea" NOT NULL,
	"public_key" "bytea" NOT NULL,
	"created_at" bigint NOT NULL
);

CREATE TABLE "kt_map_nodes" (
	"depth" smallint NOT NULL,
	"prefix" "bytea" NOT NULL,
	"hash" "bytea" NOT NULL,
	"leaf_key" "bytea",
	"leaf_value" "bytea",
	CONSTRAINT "kt_map_nodes_pkey" PRIMARY KEY("depth","prefix")
);

CREATE TABLE "kt_sths" (
	"tree_size" bigint PRIMARY KEY NOT NULL,
	"timestamp_ms" bigint NOT NULL,
	"root_hash" "bytea" NOT NULL,
	"index_root" "bytea" NOT NULL,
	"signature" "bytea" NOT NULL
);

CREATE TABLE "kt_subtrees" (
	"level" smallint NOT NULL,
	"node_index" bigint NOT NULL,
	"hash" "bytea" NOT NULL,
	CONSTRAINT "kt_subtrees_pkey" PRIMARY KEY("level","node_index")
);

CREATE INDEX "kt_leaves_address_leaf_index_idx" ON "kt_leaves" USING btree ("address","leaf_index");
