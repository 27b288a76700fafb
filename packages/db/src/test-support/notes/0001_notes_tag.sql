ALTER TABLE "notes" ADD COLUMN "tag" text;
