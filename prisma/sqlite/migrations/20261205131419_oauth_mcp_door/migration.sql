-- AlterTable
ALTER TABLE "Run" ADD COLUMN "oauthGrantId" TEXT;

-- CreateTable
CREATE TABLE "OAuthClient" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clientId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "uri" TEXT,
    "logoUri" TEXT,
    "redirectUris" JSONB NOT NULL,
    "refreshAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdFrom" TEXT
);

-- CreateTable
CREATE TABLE "OAuthGrant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "memberRole" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "revokedReason" TEXT,
    CONSTRAINT "OAuthGrant_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OAuthGrant_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "OAuthClient" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OAuthToken" (
    "hash" TEXT NOT NULL PRIMARY KEY,
    "grantId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "codeChallenge" TEXT,
    "redirectUri" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OAuthToken_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "OAuthGrant" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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


-- The door keeps validated access tokens per instance (lib/oauth/grants.ts): any change of a
-- grant (but lastUsedAt), of a client, or of a member's role, status or organization bumps
-- the "oauth" topic, so a revocation is seen by the next request of every instance.
INSERT INTO "CacheVersion" ("topic", "version") VALUES ('oauth', 0);
CREATE TRIGGER "OAuthGrant_insert_changes" AFTER INSERT ON "OAuthGrant"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'oauth'; END;
CREATE TRIGGER "OAuthGrant_update_changes" AFTER UPDATE OF "id", "organizationId", "memberId", "clientId", "agentId", "resource", "scope", "memberRole", "createdAt", "revokedAt", "revokedReason" ON "OAuthGrant"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'oauth'; END;
CREATE TRIGGER "OAuthGrant_delete_changes" AFTER DELETE ON "OAuthGrant"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'oauth'; END;
CREATE TRIGGER "OAuthClient_update_changes" AFTER UPDATE ON "OAuthClient"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'oauth'; END;
CREATE TRIGGER "OAuthClient_delete_changes" AFTER DELETE ON "OAuthClient"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'oauth'; END;
CREATE TRIGGER "Member_oauth_update_changes" AFTER UPDATE OF "id", "organizationId", "email", "role", "deactivatedAt" ON "Member"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'oauth'; END;
CREATE TRIGGER "Member_oauth_delete_changes" AFTER DELETE ON "Member"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'oauth'; END;
