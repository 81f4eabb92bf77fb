import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { driverRows } from "./driver";
import { db, provider } from "./index";

// Knowing, without a query, that rows an instance keeps in process have not
// changed. Database triggers (in the migrations) bump a topic's version in
// CacheVersion in the transaction of every change of a watched table,
// whichever process or instance makes it:
//   api_keys  ApiKey (but lastUsedAt)
//   tenancy   Organization (but name), Plan, PlanModel, Model
//   catalog   McpServer, McpTool
//   policies  PolicyVersion, ShadowPolicy
//   oauth     OAuthGrant (but lastUsedAt), OAuthClient, Member (role, status, organization)
//   widgets   Widget, Agent (active, organization)
// - SQLite (one file, one host): each instance holds one read connection of
//   its own. PRAGMA data_version answers, without I/O, whether any other
//   connection has committed since it last asked; only then are the versions
//   read. A request asks at its first look into a cache, unless this instance
//   asked since the request began (the answer then already covers every
//   commit made before it arrived). A change is seen by the next request, on
//   every instance.
// - PostgreSQL (several hosts, nothing tells an instance at once): each
//   request reads the versions once (one small indexed query), at its first
//   look into a cache, and requests that arrive together share that read
//   (see "PostgreSQL" below for when sharing is safe). A change committed
//   before a request arrived is seen by that request, on every instance. A
//   NOTIFY would not do: it reaches the other instances a little after the
//   commit, so a request sent right after a revocation could still be served
//   from what an instance kept.
// A topic's mark changes with every change of the topic; something loaded
// after taking the mark is current as long as the mark is the same.

export type Topic = "api_keys" | "tenancy" | "catalog" | "policies" | "oauth" | "widgets";
const TOPICS: readonly Topic[] = ["api_keys", "tenancy", "catalog", "policies", "oauth", "widgets"];

/** Bumped at every change seen; each topic remembers the value at its last change. */
let clock = 1;
const changedAt = new Map<Topic, number>(TOPICS.map((t) => [t, clock]));

function changed(topics: readonly Topic[]) {
  clock++;
  for (const topic of topics) changedAt.set(topic, clock);
}

// ---------------------------------------------------------------- SQLite

let sqlite: {
  db: BetterSqlite3.Database;
  dataVersion: BetterSqlite3.Statement;
  versions: BetterSqlite3.Statement;
} | null = null;
let sqliteFailed = false;
/** How many looks at the versions this instance has taken (SQLite polls, PostgreSQL reads issued). */
let readsIssued = 0;
let lastDataVersion = -1;
const lastVersions = new Map<string, number>();

function sqliteFile(url: string): string {
  const file = url.slice("file:".length).split("?")[0];
  return path.resolve(file);
}

/** False when the read connection cannot be had: nothing is then known to be unchanged. */
function pollSqlite(): boolean {
  if (sqliteFailed) return false;
  try {
    if (!sqlite) {
      const db = new BetterSqlite3(sqliteFile(env.databaseUrl), { readonly: true, fileMustExist: true });
      sqlite = {
        db,
        dataVersion: db.prepare("PRAGMA data_version").pluck(),
        versions: db.prepare(`SELECT "topic", "version" FROM "CacheVersion"`),
      };
    }
    readsIssued++;
    const version = sqlite.dataVersion.get() as number;
    if (version === lastDataVersion) return true;
    lastDataVersion = version;
    const moved: Topic[] = [];
    for (const row of sqlite.versions.all() as { topic: string; version: number }[]) {
      if (lastVersions.get(row.topic) !== row.version) {
        lastVersions.set(row.topic, row.version);
        if ((TOPICS as string[]).includes(row.topic)) moved.push(row.topic as Topic);
      }
    }
    if (moved.length > 0) changed(moved);
    return true;
  } catch (error) {
    // No CacheVersion table (a database not migrated yet) or no file: read the database every time.
    sqliteFailed = true;
    log("warn", "changes.sqlite_unavailable", { error: error instanceof Error ? error.message : "Error" });
    sqlite?.db.close();
    sqlite = null;
    return false;
  }
}

// ---------------------------------------------------------------- PostgreSQL

/** One read of the versions; `versions` is null when they cannot be read. */
interface VersionRead {
  /** Position in the order reads were issued: 1, 2, 3… (0 while it waits for the read in flight). */
  seq: number;
  versions: Promise<Map<string, number> | null>;
  /** The versions once read (for synchronous lookups). */
  settled?: Map<string, number> | null;
}

/** The last read issued, and the one that waits for it to settle before it is issued (at most one of each). */
let lastRead: VersionRead | null = null;
let nextRead: VersionRead | null = null;
let pgFailureLogged = false;

/** What a request remembers: how many looks had been taken when it began, and (PostgreSQL) the read it uses. */
interface RequestVersions {
  readsIssuedBefore: number;
  read?: VersionRead;
  /** Set when the handler has answered: work left behind (a streamed body) reads afresh. */
  ended?: boolean;
}
const currentRequest = new AsyncLocalStorage<RequestVersions>();

/**
 * Runs one request (lib/http/handler.ts wraps every /v1 handler with it, the
 * MCP endpoint and the widget's public surface too): its lookups share one read of the versions, so a
 * handler that changes watched rows and then reads them back through a cache
 * calls that cache's clear() in between. Outside a request, every lookup
 * counts as a request of its own.
 */
export async function withinRequest<T>(fn: () => Promise<T>): Promise<T> {
  const request: RequestVersions = { readsIssuedBefore: readsIssued };
  try {
    return await currentRequest.run(request, fn);
  } finally {
    request.ended = true;
  }
}

function requestVersions(): RequestVersions | undefined {
  const request = currentRequest.getStore();
  return request && !request.ended ? request : undefined;
}

const VERSIONS = `SELECT "topic", "version" FROM "CacheVersion"`;

/** On the driver once Prisma has connected (lib/db/driver.ts): this read is on every request's path. */
async function readVersions(): Promise<{ topic: string; version: number | string }[]> {
  return (
    (await driverRows<{ topic: string; version: number | string }>({ sql: VERSIONS, values: [] })) ??
    (await db.$queryRawUnsafe<{ topic: string; version: number }[]>(VERSIONS))
  );
}

function startRead(read: VersionRead): Promise<Map<string, number> | null> {
  read.seq = ++readsIssued;
  lastRead = read;
  return readVersions().then(
    (rows) => (read.settled = new Map(rows.map((row) => [row.topic, Number(row.version)]))),
    (error: unknown) => {
      // No CacheVersion table (a database not migrated yet): read the database every time.
      if (!pgFailureLogged) {
        pgFailureLogged = true;
        log("warn", "changes.postgresql_unavailable", { error: error instanceof Error ? error.message : "Error" });
      }
      return (read.settled = null);
    },
  );
}

function issueRead(): VersionRead {
  const read: VersionRead = { seq: 0, versions: Promise.resolve(null) };
  read.versions = startRead(read);
  return read;
}

/** A read issued as soon as `inFlight` has settled (its answer never fails: errors read as null). */
function queueRead(inFlight: VersionRead): VersionRead {
  const read: VersionRead = { seq: 0, versions: Promise.resolve(null) };
  read.versions = inFlight.versions.then(() => {
    if (nextRead === read) nextRead = null;
    return startRead(read);
  });
  return read;
}

/**
 * The versions as committed when the current request began, or later.
 *
 * Why sharing is safe: a read sees every commit made before it was issued
 * (the statement's snapshot is taken after it is sent). So a request may use
 * any read issued after it began, finished or still in flight, or one not yet
 * issued, and no other: a read issued earlier, even one still in flight, may
 * predate a revocation committed just before the request arrived. Reads are
 * numbered when issued, and a request notes how many had been issued when it
 * began: it uses the last read if its number is higher. Otherwise, with no
 * read in flight, it issues one; with one in flight, it takes the read that
 * will be issued as soon as that one has settled, which every request that
 * arrives meanwhile shares. So at most one read is in flight per instance,
 * however many requests arrive, and a request waits at most for two. It then
 * keeps that read for its other lookups.
 */
function pgVersions(): VersionRead {
  const request = requestVersions();
  if (request?.read) return request.read;
  const readsIssuedBefore = request ? request.readsIssuedBefore : readsIssued;
  let read: VersionRead;
  if (lastRead && lastRead.seq > readsIssuedBefore) read = lastRead;
  else if (lastRead && lastRead.settled === undefined) read = nextRead ??= queueRead(lastRead);
  else read = issueRead();
  if (request) request.read = read;
  return read;
}

/** A mark of `topics` from the versions read: equal marks, no change between the two reads. */
function pgMark(versions: Map<string, number> | null | undefined, topics: readonly Topic[]): string | null {
  if (!versions) return null;
  return topics.map((topic) => versions.get(topic) ?? -1).join(".");
}

// ----------------------------------------------------------------

/**
 * The current mark of `topics` on SQLite, or null when this instance cannot tell a
 * change now (the caller then reads the database and keeps nothing). Take
 * it before loading; what was loaded stays current while the mark is equal.
 */
export function changeMark(topics: readonly Topic[]): number | null {
  if (provider !== "sqlite") return null;
  const request = requestVersions();
  const polledSinceArrival = request !== undefined && readsIssued > request.readsIssuedBefore && !sqliteFailed;
  if (!polledSinceArrival && !pollSqlite()) return null;
  let mark = 0;
  for (const topic of topics) mark = Math.max(mark, changedAt.get(topic) ?? 0);
  return mark;
}

/**
 * A map kept in process, whose entries hold while none of `topics` changed.
 * Bounded: past `maxEntries` the oldest entry goes.
 */
export class WatchedCache<K, V> {
  private entries = new Map<K, { mark: number | string; value: V }>();

  constructor(
    private readonly topics: readonly Topic[],
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The kept value of `key` if still current, otherwise `load()`'s, kept when
   * nothing changed meanwhile (null and undefined, "not found", are never kept).
   */
  async get<T extends V | null>(key: K, load: () => Promise<T>): Promise<T | V> {
    if (provider === "postgresql") return this.getPostgres(key, load);
    const mark = changeMark(this.topics);
    if (mark === null) return load();
    const entry = this.entries.get(key);
    if (entry && entry.mark === mark) return entry.value;
    const value = await load();
    // A change while loading may or may not be in `value`: keep it only if there was none.
    if (value !== null && value !== undefined && changeMark(this.topics) === mark) this.keep(key, mark, value);
    return value;
  }

  private async getPostgres<T extends V | null>(key: K, load: () => Promise<T>): Promise<T | V> {
    const mark = pgMark(await pgVersions().versions, this.topics);
    if (mark === null) return load();
    const entry = this.entries.get(key);
    if (entry && entry.mark === mark) return entry.value;
    const value = await load();
    // Loaded after the versions were read: a change committed since is in `value` or
    // not, but either way it moved the versions, so the entry is never used past it.
    if (value !== null && value !== undefined) this.keep(key, mark, value);
    return value;
  }

  private keep(key: K, mark: number | string, value: V) {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { mark, value });
  }

  /**
   * The kept value of `key` if still current (nothing is loaded nor kept). On
   * PostgreSQL, only once the request has read the versions.
   */
  current(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const mark =
      provider === "postgresql" ? pgMark(requestVersions()?.read?.settled, this.topics) : changeMark(this.topics);
    return entry.mark === mark ? entry.value : undefined;
  }

  /**
   * Drops everything (this instance changed a row and does not wait for the signal
   * to come back). On PostgreSQL the request also reads the versions again at its
   * next lookup, as if it began now: the read it kept predates its own change.
   */
  clear() {
    this.entries.clear();
    const request = requestVersions();
    if (request) {
      request.read = undefined;
      request.readsIssuedBefore = readsIssued;
    }
  }
}
