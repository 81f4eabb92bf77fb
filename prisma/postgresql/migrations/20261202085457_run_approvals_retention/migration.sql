-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "pendingApproval" JSONB,
ADD COLUMN     "transcriptPurgedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");

