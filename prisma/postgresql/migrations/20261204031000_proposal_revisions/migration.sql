-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "revisedBy" TEXT,
ADD COLUMN     "revisionChanges" JSONB,
ADD COLUMN     "supersedes" TEXT;

