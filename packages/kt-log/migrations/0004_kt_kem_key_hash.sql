ALTER TABLE "kt_leaves" ADD COLUMN "kem_key_hash" bytea;
