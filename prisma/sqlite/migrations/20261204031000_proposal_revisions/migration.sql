-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN "revisedBy" TEXT;
ALTER TABLE "Proposal" ADD COLUMN "revisionChanges" JSONB;
ALTER TABLE "Proposal" ADD COLUMN "supersedes" TEXT;

