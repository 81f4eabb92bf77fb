-- AlterTable
ALTER TABLE "McpServer" ADD COLUMN "oauthClientId" TEXT;
ALTER TABLE "McpServer" ADD COLUMN "oauthClientSecretCiphertext" TEXT;

-- CreateTable
CREATE TABLE "McpConnection" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "serverId" INTEGER NOT NULL,
    "memberId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "accessTokenCiphertext" TEXT,
    "refreshTokenCiphertext" TEXT,
    "expiresAt" DATETIME,
    "scope" TEXT,
    "account" TEXT,
    "state" TEXT NOT NULL,
    "lastUsedAt" DATETIME,
    "lastError" TEXT,
    "refreshLeaseUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "McpConnection_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "McpConnection_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "McpOAuthRegistration" (
    "serverId" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "organizationId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretCiphertext" TEXT,
    "method" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "McpOAuthRegistration_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "McpAuthorization" (
    "stateHash" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "serverId" INTEGER NOT NULL,
    "memberId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "codeVerifierCiphertext" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "resource" TEXT,
    "returnTo" TEXT,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "McpAuthorization_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "McpAuthorization_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "McpConnection_organizationId_idx" ON "McpConnection"("organizationId");

-- CreateIndex
CREATE INDEX "McpConnection_memberId_idx" ON "McpConnection"("memberId");

-- CreateIndex
CREATE UNIQUE INDEX "McpConnection_serverId_memberId_key" ON "McpConnection"("serverId", "memberId");

-- CreateIndex
CREATE INDEX "McpAuthorization_memberId_idx" ON "McpAuthorization"("memberId");

-- CreateIndex
CREATE INDEX "McpAuthorization_serverId_idx" ON "McpAuthorization"("serverId");

