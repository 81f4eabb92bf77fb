-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WidgetConversation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "widgetId" TEXT NOT NULL,
    "visitorId" TEXT NOT NULL,
    "visitorName" TEXT,
    "origin" TEXT NOT NULL,
    "preview" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "WidgetConversation_widgetId_fkey" FOREIGN KEY ("widgetId") REFERENCES "Widget" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_WidgetConversation" ("createdAt", "id", "organizationId", "origin", "updatedAt", "visitorId", "visitorName", "widgetId") SELECT "createdAt", "id", "organizationId", "origin", "updatedAt", "visitorId", "visitorName", "widgetId" FROM "WidgetConversation";
DROP TABLE "WidgetConversation";
ALTER TABLE "new_WidgetConversation" RENAME TO "WidgetConversation";
CREATE INDEX "WidgetConversation_widgetId_visitorId_createdAt_idx" ON "WidgetConversation"("widgetId", "visitorId", "createdAt");
CREATE INDEX "WidgetConversation_organizationId_createdAt_idx" ON "WidgetConversation"("organizationId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

