-- CreateTable
CREATE TABLE "TraceEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT,
    "version" INTEGER,
    "valid" BOOLEAN,
    "payload" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TraceEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Agent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "instructions" TEXT,
    "modelId" TEXT,
    "temperatureCenti" INTEGER NOT NULL,
    "tools" JSONB NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "outputSchema" JSONB,
    "clientTools" JSONB NOT NULL,
    "trace" TEXT NOT NULL DEFAULT 'off',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Agent_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Agent" ("active", "clientTools", "createdAt", "id", "instructions", "modelId", "name", "organizationId", "outputSchema", "temperatureCenti", "tools", "updatedAt") SELECT "active", "clientTools", "createdAt", "id", "instructions", "modelId", "name", "organizationId", "outputSchema", "temperatureCenti", "tools", "updatedAt" FROM "Agent";
DROP TABLE "Agent";
ALTER TABLE "new_Agent" RENAME TO "Agent";
CREATE UNIQUE INDEX "Agent_organizationId_name_key" ON "Agent"("organizationId", "name");
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
    "trace" TEXT NOT NULL DEFAULT 'off',
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
INSERT INTO "new_Run" ("agentId", "apiKeyId", "capabilities", "capabilitySet", "clientName", "clientVersion", "createdAt", "debug", "expiresAt", "failure", "fileIds", "id", "instructions", "mcpSeenAt", "mcpSessionHash", "memberId", "metadata", "modelId", "organizationId", "output", "requiredAction", "source", "status", "stream", "transcript", "updatedAt", "usage", "warnings") SELECT "agentId", "apiKeyId", "capabilities", "capabilitySet", "clientName", "clientVersion", "createdAt", "debug", "expiresAt", "failure", "fileIds", "id", "instructions", "mcpSeenAt", "mcpSessionHash", "memberId", "metadata", "modelId", "organizationId", "output", "requiredAction", "source", "status", "stream", "transcript", "updatedAt", "usage", "warnings" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE UNIQUE INDEX "Run_mcpSessionHash_key" ON "Run"("mcpSessionHash");
CREATE INDEX "Run_organizationId_createdAt_idx" ON "Run"("organizationId", "createdAt");
CREATE INDEX "Run_agentId_idx" ON "Run"("agentId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "TraceEvent_organizationId_tool_kind_idx" ON "TraceEvent"("organizationId", "tool", "kind");

-- CreateIndex
CREATE INDEX "TraceEvent_runId_createdAt_idx" ON "TraceEvent"("runId", "createdAt");

