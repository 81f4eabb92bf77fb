-- AlterTable
ALTER TABLE "Decision" ADD COLUMN     "shareReason" BOOLEAN NOT NULL DEFAULT false;

