-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "trace" TEXT NOT NULL DEFAULT 'off';

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "trace" TEXT NOT NULL DEFAULT 'off';

-- CreateTable
CREATE TABLE "TraceEvent" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT,
    "version" INTEGER,
    "valid" BOOLEAN,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TraceEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TraceEvent_organizationId_tool_kind_idx" ON "TraceEvent"("organizationId", "tool", "kind");

-- CreateIndex
CREATE INDEX "TraceEvent_runId_createdAt_idx" ON "TraceEvent"("runId", "createdAt");

-- AddForeignKey
ALTER TABLE "TraceEvent" ADD CONSTRAINT "TraceEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

