-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Proposal" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "toolVersion" INTEGER NOT NULL,
    "arguments" JSONB NOT NULL,
    "argumentsSha256" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "targetVersion" INTEGER,
    "effect" TEXT NOT NULL,
    "changes" JSONB NOT NULL,
    "recipients" JSONB,
    "amountValueMinor" BIGINT,
    "amountCurrency" TEXT,
    "environment" TEXT NOT NULL,
    "recordsAffected" INTEGER NOT NULL,
    "irreversible" BOOLEAN NOT NULL,
    "policy" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "requestedBy" TEXT,
    "requestedByApiKeyId" TEXT,
    "operationId" TEXT,
    "consumedAt" DATETIME,
    "dedupeKey" TEXT,
    "supersededBy" TEXT,
    "supersedes" TEXT,
    "revisedBy" TEXT,
    "revisionChanges" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Proposal" ("amountCurrency", "amountValueMinor", "arguments", "argumentsSha256", "changes", "consumedAt", "createdAt", "dedupeKey", "effect", "environment", "expiresAt", "id", "irreversible", "operationId", "organizationId", "policy", "recipients", "recordsAffected", "requestedBy", "requestedByApiKeyId", "runId", "status", "supersededBy", "targetId", "targetType", "targetVersion", "tool", "toolVersion", "updatedAt") SELECT "amountCurrency", "amountValueMinor", "arguments", "argumentsSha256", "changes", "consumedAt", "createdAt", "dedupeKey", "effect", "environment", "expiresAt", "id", "irreversible", "operationId", "organizationId", "policy", "recipients", "recordsAffected", "requestedBy", "requestedByApiKeyId", "runId", "status", "supersededBy", "targetId", "targetType", "targetVersion", "tool", "toolVersion", "updatedAt" FROM "Proposal";
DROP TABLE "Proposal";
ALTER TABLE "new_Proposal" RENAME TO "Proposal";
CREATE UNIQUE INDEX "Proposal_dedupeKey_key" ON "Proposal"("dedupeKey");
CREATE INDEX "Proposal_organizationId_status_expiresAt_idx" ON "Proposal"("organizationId", "status", "expiresAt");
CREATE INDEX "Proposal_runId_tool_targetType_targetId_idx" ON "Proposal"("runId", "tool", "targetType", "targetId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

