-- AlterTable
ALTER TABLE "RateLimitWindow" ADD COLUMN     "endsAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "RateLimitWindow_endsAt_idx" ON "RateLimitWindow"("endsAt");

