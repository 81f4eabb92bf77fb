-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN "escalateAt" DATETIME;
ALTER TABLE "Proposal" ADD COLUMN "escalatedAt" DATETIME;

-- CreateTable
CREATE TABLE "ShadowPolicy" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "rules" JSONB NOT NULL,
    "baseVersion" INTEGER NOT NULL,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ShadowDifference" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "shadowId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "toolVersion" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "live" JSONB NOT NULL,
    "shadow" JSONB NOT NULL,
    "runId" TEXT,
    "stepId" TEXT,
    "proposalId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "PolicyEvaluation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "toolVersion" INTEGER NOT NULL,
    "facts" JSONB NOT NULL,
    "outcome" JSONB NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "runId" TEXT,
    "stepId" TEXT,
    "proposalId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "ShadowPolicy_organizationId_key" ON "ShadowPolicy"("organizationId");

-- CreateIndex
CREATE INDEX "ShadowDifference_organizationId_shadowId_createdAt_idx" ON "ShadowDifference"("organizationId", "shadowId", "createdAt");

-- CreateIndex
CREATE INDEX "PolicyEvaluation_organizationId_createdAt_idx" ON "PolicyEvaluation"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "Proposal_escalateAt_idx" ON "Proposal"("escalateAt");


-- The live and shadow policy tables are read on every write decision: instances keep them in
-- process and drop them when either table changes (topic "policies", lib/db/changes.ts).
INSERT INTO "CacheVersion" ("topic", "version") VALUES ('policies', 0);
CREATE TRIGGER "PolicyVersion_insert_changes" AFTER INSERT ON "PolicyVersion"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'policies'; END;
CREATE TRIGGER "PolicyVersion_update_changes" AFTER UPDATE ON "PolicyVersion"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'policies'; END;
CREATE TRIGGER "PolicyVersion_delete_changes" AFTER DELETE ON "PolicyVersion"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'policies'; END;
CREATE TRIGGER "ShadowPolicy_insert_changes" AFTER INSERT ON "ShadowPolicy"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'policies'; END;
CREATE TRIGGER "ShadowPolicy_update_changes" AFTER UPDATE ON "ShadowPolicy"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'policies'; END;
CREATE TRIGGER "ShadowPolicy_delete_changes" AFTER DELETE ON "ShadowPolicy"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'policies'; END;
