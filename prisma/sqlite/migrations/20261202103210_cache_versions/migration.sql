-- CreateTable
CREATE TABLE "CacheVersion" (
    "topic" TEXT NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL DEFAULT 0
);


-- Every change of a watched table bumps its topic's version, in the same transaction:
-- instances check the versions when another connection has written (PRAGMA data_version)
-- and drop what they keep of a changed topic (lib/db/changes.ts).
INSERT INTO "CacheVersion" ("topic", "version") VALUES ('api_keys', 0), ('tenancy', 0), ('catalog', 0);

CREATE TRIGGER "ApiKey_insert_changes" AFTER INSERT ON "ApiKey"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'api_keys'; END;
-- lastUsedAt alone is written once a minute per key and changes nothing an instance keeps.
CREATE TRIGGER "ApiKey_update_changes" AFTER UPDATE OF "id", "organizationId", "name", "prefix", "secretHash", "scopes", "createdById", "revokedAt", "createdAt" ON "ApiKey"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'api_keys'; END;
CREATE TRIGGER "ApiKey_delete_changes" AFTER DELETE ON "ApiKey"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'api_keys'; END;
CREATE TRIGGER "Organization_insert_changes" AFTER INSERT ON "Organization"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
-- Writing name alone is how a transaction locks its organization's row (lib/files/quota.ts); no instance keeps it.
CREATE TRIGGER "Organization_update_changes" AFTER UPDATE OF "id", "slug", "planId", "createdAt" ON "Organization"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "Organization_delete_changes" AFTER DELETE ON "Organization"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "Plan_insert_changes" AFTER INSERT ON "Plan"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "Plan_update_changes" AFTER UPDATE ON "Plan"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "Plan_delete_changes" AFTER DELETE ON "Plan"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "PlanModel_insert_changes" AFTER INSERT ON "PlanModel"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "PlanModel_update_changes" AFTER UPDATE ON "PlanModel"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "PlanModel_delete_changes" AFTER DELETE ON "PlanModel"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "Model_insert_changes" AFTER INSERT ON "Model"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "Model_update_changes" AFTER UPDATE ON "Model"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "Model_delete_changes" AFTER DELETE ON "Model"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'tenancy'; END;
CREATE TRIGGER "McpServer_insert_changes" AFTER INSERT ON "McpServer"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'catalog'; END;
CREATE TRIGGER "McpServer_update_changes" AFTER UPDATE ON "McpServer"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'catalog'; END;
CREATE TRIGGER "McpServer_delete_changes" AFTER DELETE ON "McpServer"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'catalog'; END;
CREATE TRIGGER "McpTool_insert_changes" AFTER INSERT ON "McpTool"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'catalog'; END;
CREATE TRIGGER "McpTool_update_changes" AFTER UPDATE ON "McpTool"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'catalog'; END;
CREATE TRIGGER "McpTool_delete_changes" AFTER DELETE ON "McpTool"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'catalog'; END;
