ALTER TABLE "transfer_streams" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;
ALTER TABLE "transfer_streams" ADD COLUMN "cipher" text DEFAULT 'chacha20-poly1305' NOT NULL;
ALTER TABLE "transfer_streams" ALTER COLUMN "sha256" DROP NOT NULL;
ALTER TABLE "transfer_streams" ADD CONSTRAINT "transfer_streams_version_check" CHECK ("version" in (1, 2));
ALTER TABLE "transfer_streams" ADD CONSTRAINT "transfer_streams_sha256_check" CHECK ("version" = 2 or "sha256" is not null);
ALTER TABLE "transfer_streams" ADD CONSTRAINT "transfer_streams_cipher_check" CHECK ("cipher" in ('chacha20-poly1305', 'aes-256-gcm') and ("version" = 2 or "cipher" = 'chacha20-poly1305'));
