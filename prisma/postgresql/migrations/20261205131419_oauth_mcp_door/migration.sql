-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "oauthGrantId" TEXT;

-- CreateTable
CREATE TABLE "OAuthClient" (
    "id" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "uri" TEXT,
    "logoUri" TEXT,
    "redirectUris" JSONB NOT NULL,
    "refreshAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdFrom" TEXT,

    CONSTRAINT "OAuthClient_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OAuthGrant" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "memberRole" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "revokedReason" TEXT,

    CONSTRAINT "OAuthGrant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OAuthToken" (
    "hash" TEXT NOT NULL,
    "grantId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "codeChallenge" TEXT,
    "redirectUri" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OAuthToken_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "OAuthClient_clientId_key" ON "OAuthClient"("clientId");

-- CreateIndex
CREATE INDEX "OAuthClient_createdFrom_createdAt_idx" ON "OAuthClient"("createdFrom", "createdAt");

-- CreateIndex
CREATE INDEX "OAuthGrant_organizationId_revokedAt_idx" ON "OAuthGrant"("organizationId", "revokedAt");

-- CreateIndex
CREATE INDEX "OAuthGrant_memberId_idx" ON "OAuthGrant"("memberId");

-- CreateIndex
CREATE INDEX "OAuthToken_grantId_idx" ON "OAuthToken"("grantId");

-- AddForeignKey
ALTER TABLE "OAuthGrant" ADD CONSTRAINT "OAuthGrant_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OAuthGrant" ADD CONSTRAINT "OAuthGrant_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "OAuthClient"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OAuthToken" ADD CONSTRAINT "OAuthToken_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "OAuthGrant"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The door keeps validated access tokens per instance (lib/oauth/grants.ts): any change of a
-- grant (but lastUsedAt), of a client, or of a member's role, status or organization bumps
-- the "oauth" topic, so a revocation is seen by the next request of every instance.
INSERT INTO "CacheVersion" ("topic", "version") VALUES ('oauth', 0);
CREATE TRIGGER "OAuthGrant_update_changes" AFTER UPDATE OF "id", "organizationId", "memberId", "clientId", "agentId", "resource", "scope", "memberRole", "createdAt", "revokedAt", "revokedReason" ON "OAuthGrant"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('oauth');
CREATE TRIGGER "OAuthGrant_insert_delete_changes" AFTER INSERT OR DELETE OR TRUNCATE ON "OAuthGrant"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('oauth');
CREATE TRIGGER "OAuthClient_update_delete_changes" AFTER UPDATE OR DELETE OR TRUNCATE ON "OAuthClient"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('oauth');
CREATE TRIGGER "Member_oauth_update_changes" AFTER UPDATE OF "id", "organizationId", "email", "role", "deactivatedAt" ON "Member"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('oauth');
CREATE TRIGGER "Member_oauth_delete_changes" AFTER DELETE OR TRUNCATE ON "Member"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('oauth');
