-- CreateTable
CREATE TABLE "CacheVersion" (
    "topic" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "CacheVersion_pkey" PRIMARY KEY ("topic")
);


-- Every change of a watched table bumps its topic's version, in the same
-- transaction (lib/db/changes.ts says who reads them).
INSERT INTO "CacheVersion" ("topic", "version") VALUES ('api_keys', 0), ('tenancy', 0), ('catalog', 0);

CREATE FUNCTION "guichet_bump_cache_version"() RETURNS trigger AS $$
BEGIN
  UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = TG_ARGV[0];
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

-- lastUsedAt alone is written once a minute per key and changes nothing an instance keeps.
CREATE TRIGGER "ApiKey_update_changes" AFTER UPDATE OF "id", "organizationId", "name", "prefix", "secretHash", "scopes", "createdById", "revokedAt", "createdAt" ON "ApiKey"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('api_keys');
CREATE TRIGGER "ApiKey_insert_delete_changes" AFTER INSERT OR DELETE OR TRUNCATE ON "ApiKey"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('api_keys');
-- Writing name alone is how a transaction locks its organization's row (lib/files/quota.ts); no instance keeps it.
CREATE TRIGGER "Organization_update_changes" AFTER UPDATE OF "id", "slug", "planId", "createdAt" ON "Organization"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('tenancy');
CREATE TRIGGER "Organization_insert_delete_changes" AFTER INSERT OR DELETE OR TRUNCATE ON "Organization"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('tenancy');
CREATE TRIGGER "Plan_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Plan"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('tenancy');
CREATE TRIGGER "PlanModel_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "PlanModel"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('tenancy');
CREATE TRIGGER "Model_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Model"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('tenancy');
CREATE TRIGGER "McpServer_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "McpServer"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('catalog');
CREATE TRIGGER "McpTool_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "McpTool"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('catalog');
