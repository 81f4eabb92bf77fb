-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_agentId_fkey";

-- AlterTable
ALTER TABLE "Run" ALTER COLUMN "agentId" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "Run_agentId_idx" ON "Run"("agentId");

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

