-- AlterTable
ALTER TABLE "Proposal" ALTER COLUMN "amountValueMinor" SET DATA TYPE BIGINT;

