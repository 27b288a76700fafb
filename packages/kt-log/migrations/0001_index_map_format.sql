ALTER TABLE "kt_log" ADD COLUMN "index_map_format" smallint DEFAULT 1 NOT NULL;
