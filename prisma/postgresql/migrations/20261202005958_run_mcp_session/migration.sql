-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "clientName" TEXT,
ADD COLUMN     "clientVersion" TEXT,
ADD COLUMN     "mcpSeenAt" TIMESTAMP(3),
ADD COLUMN     "mcpSessionHash" TEXT,
ADD COLUMN     "source" TEXT NOT NULL DEFAULT 'api';

-- CreateIndex
CREATE UNIQUE INDEX "Run_mcpSessionHash_key" ON "Run"("mcpSessionHash");

