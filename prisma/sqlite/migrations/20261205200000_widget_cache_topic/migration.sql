-- A widget and its agent's state are kept by each instance for the widget's public surface
-- (lib/widgets/public.ts): any change of a widget (origins, key, limits, active…) or of whether
-- its agent is active bumps the "widgets" topic, so the next bubble request of every instance
-- reads them again.
INSERT INTO "CacheVersion" ("topic", "version") VALUES ('widgets', 0);
CREATE TRIGGER "Widget_insert_changes" AFTER INSERT ON "Widget"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'widgets'; END;
CREATE TRIGGER "Widget_update_changes" AFTER UPDATE ON "Widget"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'widgets'; END;
CREATE TRIGGER "Widget_delete_changes" AFTER DELETE ON "Widget"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'widgets'; END;
CREATE TRIGGER "Agent_widgets_update_changes" AFTER UPDATE OF "id", "organizationId", "active" ON "Agent"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'widgets'; END;
CREATE TRIGGER "Agent_widgets_delete_changes" AFTER DELETE ON "Agent"
BEGIN UPDATE "CacheVersion" SET "version" = "version" + 1 WHERE "topic" = 'widgets'; END;
