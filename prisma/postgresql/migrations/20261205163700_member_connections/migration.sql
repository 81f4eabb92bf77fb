-- AlterTable
ALTER TABLE "McpServer" ADD COLUMN     "oauthClientId" TEXT,
ADD COLUMN     "oauthClientSecretCiphertext" TEXT;

-- CreateTable
CREATE TABLE "McpConnection" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "serverId" INTEGER NOT NULL,
    "memberId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "accessTokenCiphertext" TEXT,
    "refreshTokenCiphertext" TEXT,
    "expiresAt" TIMESTAMP(3),
    "scope" TEXT,
    "account" TEXT,
    "state" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMP(3),
    "lastError" TEXT,
    "refreshLeaseUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "McpConnection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "McpOAuthRegistration" (
    "serverId" INTEGER NOT NULL,
    "organizationId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretCiphertext" TEXT,
    "method" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpOAuthRegistration_pkey" PRIMARY KEY ("serverId")
);

-- CreateTable
CREATE TABLE "McpAuthorization" (
    "stateHash" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "serverId" INTEGER NOT NULL,
    "memberId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "codeVerifierCiphertext" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "resource" TEXT,
    "returnTo" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpAuthorization_pkey" PRIMARY KEY ("stateHash")
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

-- AddForeignKey
ALTER TABLE "McpConnection" ADD CONSTRAINT "McpConnection_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpConnection" ADD CONSTRAINT "McpConnection_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpOAuthRegistration" ADD CONSTRAINT "McpOAuthRegistration_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpAuthorization" ADD CONSTRAINT "McpAuthorization_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpAuthorization" ADD CONSTRAINT "McpAuthorization_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member"("id") ON DELETE CASCADE ON UPDATE CASCADE;

