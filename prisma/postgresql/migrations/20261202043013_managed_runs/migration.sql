-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "failure" JSONB,
ADD COLUMN     "metadata" JSONB,
ADD COLUMN     "modelId" TEXT,
ADD COLUMN     "output" JSONB,
ADD COLUMN     "transcript" JSONB,
ADD COLUMN     "usage" JSONB;

