-- AlterTable
ALTER TABLE "Step" ADD COLUMN "apiKeyId" TEXT;
ALTER TABLE "Step" ADD COLUMN "memberId" TEXT;

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN "requestedByApiKeyId" TEXT;

