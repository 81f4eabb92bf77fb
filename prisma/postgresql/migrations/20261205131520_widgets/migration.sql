-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "widgetId" TEXT;

-- CreateTable
CREATE TABLE "Widget" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "secretEncrypted" TEXT NOT NULL,
    "secretPrefix" TEXT NOT NULL,
    "allowedOrigins" JSONB NOT NULL,
    "identity" TEXT NOT NULL,
    "capabilities" TEXT NOT NULL DEFAULT 'read',
    "instructions" TEXT,
    "appearance" JSONB NOT NULL,
    "limits" JSONB NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Widget_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WidgetConversation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "widgetId" TEXT NOT NULL,
    "visitorId" TEXT NOT NULL,
    "visitorName" TEXT,
    "origin" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WidgetConversation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WidgetMessage" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "runId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WidgetMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Widget_publicKey_key" ON "Widget"("publicKey");

-- CreateIndex
CREATE INDEX "Widget_organizationId_createdAt_idx" ON "Widget"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "WidgetConversation_widgetId_visitorId_createdAt_idx" ON "WidgetConversation"("widgetId", "visitorId", "createdAt");

-- CreateIndex
CREATE INDEX "WidgetConversation_organizationId_createdAt_idx" ON "WidgetConversation"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "WidgetMessage_conversationId_createdAt_idx" ON "WidgetMessage"("conversationId", "createdAt");

-- CreateIndex
CREATE INDEX "WidgetMessage_runId_idx" ON "WidgetMessage"("runId");

-- AddForeignKey
ALTER TABLE "Widget" ADD CONSTRAINT "Widget_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WidgetConversation" ADD CONSTRAINT "WidgetConversation_widgetId_fkey" FOREIGN KEY ("widgetId") REFERENCES "Widget"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WidgetMessage" ADD CONSTRAINT "WidgetMessage_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "WidgetConversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

