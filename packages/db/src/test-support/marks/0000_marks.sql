CREATE TABLE "marks" (
  "note_id" text NOT NULL REFERENCES "notes" ("id") ON DELETE CASCADE,
  "mark" text NOT NULL
);
