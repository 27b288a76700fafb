CREATE TABLE "probe_after" ("id" integer);
