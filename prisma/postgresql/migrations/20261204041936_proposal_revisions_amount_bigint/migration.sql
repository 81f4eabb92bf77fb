-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "revisedBy" TEXT,
ADD COLUMN     "revisionChanges" JSONB,
ADD COLUMN     "supersedes" TEXT,
ALTER COLUMN "amountValueMinor" SET DATA TYPE BIGINT;

