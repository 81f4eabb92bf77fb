-- AlterTable
ALTER TABLE "Operation" ADD COLUMN "outcome" JSONB;

