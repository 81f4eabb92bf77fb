-- CreateTable
CREATE TABLE "RunEvent" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "organizationId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("runId", "seq"),
    CONSTRAINT "RunEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

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
    "modelId" TEXT,
    "metadata" JSONB,
    "transcript" JSONB,
    "output" JSONB,
    "usage" JSONB,
    "failure" JSONB,
    "requiredAction" JSONB,
    "stream" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Run" ("agentId", "apiKeyId", "capabilities", "capabilitySet", "clientName", "clientVersion", "createdAt", "debug", "expiresAt", "failure", "fileIds", "id", "instructions", "mcpSeenAt", "mcpSessionHash", "memberId", "metadata", "modelId", "organizationId", "output", "requiredAction", "source", "status", "transcript", "updatedAt", "usage", "warnings") SELECT "agentId", "apiKeyId", "capabilities", "capabilitySet", "clientName", "clientVersion", "createdAt", "debug", "expiresAt", "failure", "fileIds", "id", "instructions", "mcpSeenAt", "mcpSessionHash", "memberId", "metadata", "modelId", "organizationId", "output", "requiredAction", "source", "status", "transcript", "updatedAt", "usage", "warnings" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE UNIQUE INDEX "Run_mcpSessionHash_key" ON "Run"("mcpSessionHash");
CREATE INDEX "Run_organizationId_createdAt_idx" ON "Run"("organizationId", "createdAt");
CREATE INDEX "Run_agentId_idx" ON "Run"("agentId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

