/**
 * Crash reports sent by `burrow` clients: stored as they arrive, listed newest first for
 * operators, and capped so a flood of reports cannot grow the database without bound. Written
 * once with Kysely for SQLite and PostgreSQL; reached as `store.crashReports`.
 */

import type { Kysely, Selectable } from 'kysely'
import { newId } from './random-token.js'
import { storableText } from './storable-text.js'
import type { CrashReportsTable, Database } from './schema.js'
import { StoreError } from './store-error.js'

/** How a client crashed: an uncaught exception or rejection, or an internal error it caught last. */
export const CRASH_KINDS = ['uncaught', 'fatal'] as const

/** One of `CRASH_KINDS`. */
export type CrashKind = (typeof CRASH_KINDS)[number]

/** What a client reports (already validated by the API). */
export interface CrashReportInput {
  readonly clientVersion: string
  readonly os: string
  readonly arch: string
  readonly node: string
  readonly kind: CrashKind
  readonly message: string
  readonly stack: string
  /** The subcommand that crashed, or null. */
  readonly command: string | null
}

/** A stored crash report. */
export interface CrashReport extends CrashReportInput {
  /** `crash_` + 20 hex digits. */
  readonly id: string
  readonly receivedAt: Date
}

/** Reports kept by default; older ones are deleted as new ones arrive. */
export const DEFAULT_CRASH_REPORTS_KEPT = 10_000

/** Queries over `crash_reports`. */
export class CrashReportStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date) {
    this.#db = db
    this.#now = now
  }

  /**
   * Store a report received now and return it. Afterwards only the newest `keep` reports remain
   * (default `DEFAULT_CRASH_REPORTS_KEPT`). A NUL in the message or stack is stored as U+FFFD
   * (`storableText`): PostgreSQL refuses one, and a stranger may send any JSON string. Throws
   * `StoreError` `invalid` for an unknown kind.
   */
  async add(input: CrashReportInput, keep = DEFAULT_CRASH_REPORTS_KEPT): Promise<CrashReport> {
    if (!(CRASH_KINDS as readonly string[]).includes(input.kind)) {
      throw new StoreError(
        'invalid',
        `crash report kind "${input.kind}" is not one of uncaught, fatal`,
      )
    }
    const row = {
      id: newId('crash_'),
      received_at: this.#now().toISOString(),
      client_version: input.clientVersion,
      os: input.os,
      arch: input.arch,
      node: input.node,
      kind: input.kind,
      message: storableText(input.message),
      stack: storableText(input.stack),
      command: input.command,
    }
    await this.#db.insertInto('crash_reports').values(row).execute()
    // The newest report beyond `keep`, found on the (received_at, id) index, and every older one
    // go. (`id not in (the newest keep)` read the whole table on every report: 30 ms with 10 000
    // kept, on SQLite's thread, which is burrowd's.)
    const beyond = await this.#db
      .selectFrom('crash_reports')
      .select(['received_at', 'id'])
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(keep)
      .executeTakeFirst()
    if (beyond) {
      await this.#db
        .deleteFrom('crash_reports')
        .where((eb) =>
          eb(eb.refTuple('received_at', 'id'), '<=', eb.tuple(beyond.received_at, beyond.id)),
        )
        .execute()
    }
    return toCrashReport(row)
  }

  /** The newest `limit` reports, newest first. */
  async list(limit: number): Promise<CrashReport[]> {
    const rows = await this.#db
      .selectFrom('crash_reports')
      .selectAll()
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
    return rows.map(toCrashReport)
  }
}

function toCrashReport(row: Selectable<CrashReportsTable>): CrashReport {
  return {
    id: row.id,
    receivedAt: new Date(row.received_at),
    clientVersion: row.client_version,
    os: row.os,
    arch: row.arch,
    node: row.node,
    // Rows are only written by `add`, which checks the kind; an old unknown kind reads as fatal.
    kind: row.kind === 'uncaught' ? 'uncaught' : 'fatal',
    message: row.message,
    stack: row.stack,
    command: row.command,
  }
}
