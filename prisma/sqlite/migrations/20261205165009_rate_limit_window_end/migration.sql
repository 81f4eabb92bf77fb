-- AlterTable
ALTER TABLE "RateLimitWindow" ADD COLUMN "endsAt" DATETIME;

-- CreateIndex
CREATE INDEX "RateLimitWindow_endsAt_idx" ON "RateLimitWindow"("endsAt");

