-- DropIndex
DROP INDEX "Proposal_runId_argumentsSha256_tool_key";

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "dedupeKey" TEXT;

-- AlterTable
ALTER TABLE "Operation" ADD COLUMN     "argumentsSha256" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE UNIQUE INDEX "Proposal_dedupeKey_key" ON "Proposal"("dedupeKey");

-- CreateIndex
CREATE INDEX "Proposal_runId_tool_targetType_targetId_idx" ON "Proposal"("runId", "tool", "targetType", "targetId");

-- CreateIndex
CREATE INDEX "Operation_proposalId_idx" ON "Operation"("proposalId");

