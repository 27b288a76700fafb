ALTER TABLE "kt_leaves" ADD COLUMN "list_version" bigint;
