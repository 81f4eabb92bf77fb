-- AlterTable
ALTER TABLE "Run" ADD COLUMN "pendingApproval" JSONB;
ALTER TABLE "Run" ADD COLUMN "transcriptPurgedAt" DATETIME;

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");

