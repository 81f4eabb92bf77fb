-- DropIndex
DROP INDEX "Proposal_runId_argumentsSha256_tool_key";

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN "dedupeKey" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Operation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "proposalId" TEXT,
    "tool" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "argumentsSha256" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "result" JSONB,
    "error" JSONB,
    "resolvedById" TEXT,
    "resolution" TEXT,
    "resolvedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Operation" ("createdAt", "error", "id", "idempotencyKey", "organizationId", "proposalId", "resolution", "resolvedAt", "resolvedById", "result", "runId", "status", "tool", "updatedAt") SELECT "createdAt", "error", "id", "idempotencyKey", "organizationId", "proposalId", "resolution", "resolvedAt", "resolvedById", "result", "runId", "status", "tool", "updatedAt" FROM "Operation";
DROP TABLE "Operation";
ALTER TABLE "new_Operation" RENAME TO "Operation";
CREATE UNIQUE INDEX "Operation_idempotencyKey_key" ON "Operation"("idempotencyKey");
CREATE INDEX "Operation_organizationId_status_idx" ON "Operation"("organizationId", "status");
CREATE INDEX "Operation_proposalId_idx" ON "Operation"("proposalId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "Proposal_dedupeKey_key" ON "Proposal"("dedupeKey");

-- CreateIndex
CREATE INDEX "Proposal_runId_tool_targetType_targetId_idx" ON "Proposal"("runId", "tool", "targetType", "targetId");

