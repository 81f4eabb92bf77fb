-- AlterTable
ALTER TABLE "McpTool" ADD COLUMN     "timeoutMs" INTEGER;

