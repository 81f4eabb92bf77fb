-- AlterTable
ALTER TABLE "Step" ADD COLUMN     "apiKeyId" TEXT,
ADD COLUMN     "memberId" TEXT;

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "requestedByApiKeyId" TEXT;

