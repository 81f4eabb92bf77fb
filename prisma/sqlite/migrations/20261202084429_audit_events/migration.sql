-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "details" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "AuditPurgeGate" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "before" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_createdAt_idx" ON "AuditEvent"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_action_createdAt_idx" ON "AuditEvent"("organizationId", "action", "createdAt");


-- Append-only audit trail: no UPDATE ever; a DELETE only of rows older than the
-- cutoff of a purge gate that the retention purge writes (and removes) in its own
-- transaction.
CREATE TRIGGER "AuditEvent_no_update" BEFORE UPDATE ON "AuditEvent"
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;

CREATE TRIGGER "AuditEvent_no_delete" BEFORE DELETE ON "AuditEvent"
WHEN NOT EXISTS (
    SELECT 1 FROM "AuditPurgeGate" WHERE julianday(OLD."createdAt") < julianday("AuditPurgeGate"."before")
)
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
