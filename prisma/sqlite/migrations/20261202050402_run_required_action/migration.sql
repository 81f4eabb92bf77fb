-- AlterTable
ALTER TABLE "Run" ADD COLUMN "requiredAction" JSONB;

