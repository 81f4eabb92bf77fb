-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "events" JSONB NOT NULL,
    "secretEncrypted" TEXT NOT NULL,
    "secretPrefix" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "disabledReason" TEXT,
    "disabledAt" DATETIME,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "OutboxEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "OutboxDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "endpointId" TEXT,
    "memberId" TEXT,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL,
    "claimedUntil" DATETIME,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "lastDurationMs" INTEGER,
    "deliveredAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "OutboxDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "OutboxEvent" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OutboxDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MemberPreference" (
    "memberId" TEXT NOT NULL PRIMARY KEY,
    "approvalEmails" BOOLEAN NOT NULL DEFAULT true
);

-- CreateIndex
CREATE INDEX "WebhookEndpoint_organizationId_idx" ON "WebhookEndpoint"("organizationId");

-- CreateIndex
CREATE INDEX "OutboxEvent_organizationId_createdAt_idx" ON "OutboxEvent"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "OutboxDelivery_status_nextAttemptAt_idx" ON "OutboxDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "OutboxDelivery_endpointId_createdAt_idx" ON "OutboxDelivery"("endpointId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxDelivery_eventId_endpointId_key" ON "OutboxDelivery"("eventId", "endpointId");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxDelivery_eventId_memberId_key" ON "OutboxDelivery"("eventId", "memberId");

