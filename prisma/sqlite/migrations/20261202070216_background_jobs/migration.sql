-- CreateTable
CREATE TABLE "BackgroundJob" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "singletonKey" TEXT,
    "waitingKey" TEXT,
    "state" TEXT NOT NULL,
    "startAfter" DATETIME NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "retryLimit" INTEGER NOT NULL,
    "retryDelaySeconds" INTEGER NOT NULL,
    "lockedUntil" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "BackgroundJob_state_startAfter_idx" ON "BackgroundJob"("state", "startAfter");

-- CreateIndex
CREATE UNIQUE INDEX "BackgroundJob_name_waitingKey_key" ON "BackgroundJob"("name", "waitingKey");

