-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "escalateAt" TIMESTAMP(3),
ADD COLUMN     "escalatedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "ShadowPolicy" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "rules" JSONB NOT NULL,
    "baseVersion" INTEGER NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ShadowPolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShadowDifference" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ShadowDifference_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PolicyEvaluation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "toolVersion" INTEGER NOT NULL,
    "facts" JSONB NOT NULL,
    "outcome" JSONB NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "runId" TEXT,
    "stepId" TEXT,
    "proposalId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyEvaluation_pkey" PRIMARY KEY ("id")
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
CREATE TRIGGER "PolicyVersion_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "PolicyVersion"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('policies');
CREATE TRIGGER "ShadowPolicy_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "ShadowPolicy"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('policies');
