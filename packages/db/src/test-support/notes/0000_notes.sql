CREATE TABLE "notes" ("id" text PRIMARY KEY NOT NULL, "body" bytea NOT NULL);
