-- A widget and its agent's state are kept by each instance for the widget's public surface
-- (lib/widgets/public.ts): any change of a widget (origins, key, limits, active…) or of whether
-- its agent is active bumps the "widgets" topic, so the next bubble request of every instance
-- reads them again.
INSERT INTO "CacheVersion" ("topic", "version") VALUES ('widgets', 0);
CREATE TRIGGER "Widget_insert_update_delete_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Widget"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('widgets');
CREATE TRIGGER "Agent_widgets_update_changes" AFTER UPDATE OF "id", "organizationId", "active" ON "Agent"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('widgets');
CREATE TRIGGER "Agent_widgets_delete_changes" AFTER DELETE OR TRUNCATE ON "Agent"
FOR EACH STATEMENT EXECUTE FUNCTION "guichet_bump_cache_version"('widgets');
