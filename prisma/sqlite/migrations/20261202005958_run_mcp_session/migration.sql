-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "agentId" TEXT,
    "apiKeyId" TEXT,
    "memberId" TEXT,
    "status" TEXT NOT NULL,
    "capabilities" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "capabilitySet" JSONB NOT NULL,
    "warnings" JSONB NOT NULL,
    "fileIds" JSONB NOT NULL,
    "debug" BOOLEAN NOT NULL DEFAULT false,
    "expiresAt" DATETIME NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'api',
    "clientName" TEXT,
    "clientVersion" TEXT,
    "mcpSessionHash" TEXT,
    "mcpSeenAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Run" ("agentId", "apiKeyId", "capabilities", "capabilitySet", "createdAt", "debug", "expiresAt", "fileIds", "id", "instructions", "memberId", "organizationId", "status", "updatedAt", "warnings") SELECT "agentId", "apiKeyId", "capabilities", "capabilitySet", "createdAt", "debug", "expiresAt", "fileIds", "id", "instructions", "memberId", "organizationId", "status", "updatedAt", "warnings" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE UNIQUE INDEX "Run_mcpSessionHash_key" ON "Run"("mcpSessionHash");
CREATE INDEX "Run_organizationId_createdAt_idx" ON "Run"("organizationId", "createdAt");
CREATE INDEX "Run_agentId_idx" ON "Run"("agentId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

