CREATE TABLE "probe_before" ("id" integer);
