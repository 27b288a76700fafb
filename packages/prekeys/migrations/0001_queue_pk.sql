ALTER TABLE "one_time_prekeys" DROP CONSTRAINT "one_time_prekeys_pkey";

ALTER TABLE "one_time_prekeys" ADD CONSTRAINT "one_time_prekeys_address_id_pk" PRIMARY KEY("address","id");

DROP INDEX "one_time_prekeys_address_id_idx";
