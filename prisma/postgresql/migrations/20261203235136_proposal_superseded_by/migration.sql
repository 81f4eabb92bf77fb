-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "supersededBy" TEXT;

