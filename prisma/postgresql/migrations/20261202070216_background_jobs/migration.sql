-- CreateTable
CREATE TABLE "BackgroundJob" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "singletonKey" TEXT,
    "waitingKey" TEXT,
    "state" TEXT NOT NULL,
    "startAfter" TIMESTAMP(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "retryLimit" INTEGER NOT NULL,
    "retryDelaySeconds" INTEGER NOT NULL,
    "lockedUntil" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "BackgroundJob_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BackgroundJob_state_startAfter_idx" ON "BackgroundJob"("state", "startAfter");

-- CreateIndex
CREATE UNIQUE INDEX "BackgroundJob_name_waitingKey_key" ON "BackgroundJob"("name", "waitingKey");

