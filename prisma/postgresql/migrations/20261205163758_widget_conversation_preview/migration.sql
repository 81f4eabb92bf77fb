-- AlterTable
ALTER TABLE "WidgetConversation" ADD COLUMN     "preview" BOOLEAN NOT NULL DEFAULT false;

