-- AlterTable
-- An added defaulted column: SQLite adds it in place, no table rebuild.
ALTER TABLE "Decision" ADD COLUMN "shareReason" BOOLEAN NOT NULL DEFAULT false;
