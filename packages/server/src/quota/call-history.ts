/**
 * Call history: every JSON-RPC request the edge answers for a tunnel (method, tool, status,
 * refusal code, duration), written to `call_history` in batches off the request's path. The
 * queue is bounded: when the database falls behind, new records are dropped and counted rather
 * than holding memory or delaying requests. History is a log for the dashboard, not a ledger;
 * the usage counters are what quotas and billing rely on.
 */
import { randomBytes } from 'node:crypto'
import type { Logger } from '@burrow/protocol'
import type { Insertable, Kysely } from 'kysely'
import { isDatabaseStalled, neverSent } from '../store/database-stalled.js'
import type { Database } from '../store/schema.js'
import { RowStatements } from '../store/row-statements.js'

type HistoryInsert = Insertable<Database['call_history']>

/** The columns of a row, in the order its values are listed. */
const COLUMNS = [
  'id',
  'tunnel_id',
  'at',
  'method',
  'tool',
  'status',
  'policy_code',
  'duration_ms',
  'session_id',
  'rpc_id',
  'agent',
  'outcome',
  'bytes_in',
  'bytes_out',
  'request_body',
  'response_body',
  'bodies_cut',
  'continues',
] as const satisfies readonly (keyof HistoryInsert)[]

/** One row of `call_history` as the writer inserts it: every column of `COLUMNS`, no other. */
type CallHistoryRow = { [K in (typeof COLUMNS)[number]]: HistoryInsert[K] }

/** One answered request. */
export interface CallRecord {
  /** The record's id (`newCallId`); made when written if absent. */
  readonly id?: string
  readonly tunnelId: string
  /** When the request arrived. */
  readonly at: Date
  readonly method: string
  /** The tool's name for `tools/call`, else null. */
  readonly tool: string | null
  /** HTTP status answered to the agent. */
  readonly status: number
  /** The refusal's policy code when the edge refused it, else null. */
  readonly policyCode: string | null
  /** Milliseconds from arrival to the response head. */
  readonly durationMs: number
  /** The MCP session (or agent) it came from, or null. */
  readonly sessionId?: string | null
  /** The JSON-RPC id as JSON text, or null. */
  readonly rpcId?: string | null
  /** The agent the access gate admitted, `<name> (<id>)`, or null. */
  readonly agent?: string | null
  /** `ok`, `error` (a JSON-RPC error or a tool result with isError) or `refused`. */
  readonly outcome?: 'ok' | 'error' | 'refused'
  readonly bytesIn?: number
  readonly bytesOut?: number
  /** What is stored of the request and the response: redacted JSON, cut; null for none. */
  readonly requestBody?: string | null
  readonly responseBody?: string | null
  /** A stored body was cut. */
  readonly bodiesCut?: boolean
  /** The id of the call this retry continues (2026-07-28 `requestState`), or null. */
  readonly continues?: string | null
}

/** This process's part of call ids: random, so that several nodes never make the same id. */
const NODE_PART = randomBytes(3).toString('hex')
let sequence = 0

/**
 * A call record's id: `call_`, the arrival in milliseconds (12 hex digits), this process's random
 * part and a counter (12 hex digits). Time-ordered, so new rows land at the end of the primary
 * key's index instead of dirtying a random page each (measured: 8.6 → 1.4 KB written per call),
 * and pages of history can use the last id as their cursor.
 */
export function newCallId(at: Date): string {
  sequence = (sequence + 1) % 0x1000000
  return `call_${at.getTime().toString(16).padStart(12, '0')}${NODE_PART}${sequence.toString(16).padStart(6, '0')}`
}

/** Where the edge sends call records. */
export interface CallHistorySink {
  /** Queue `record` for writing; never blocks, never throws. */
  record(record: CallRecord): void
  /**
   * Optional: ask `keeps(tunnelId)` when writing whether a tunnel's content may still be kept
   * (zero-knowledge mode may have been turned on while its records waited to be written).
   */
  keepContentIf?(keeps: (tunnelId: string) => boolean | Promise<boolean>): void
}

/** Records dropped at once after this many rows in a row fail alone (the database is down). */
const MAX_FAILED_ROWS_IN_A_ROW = 3

/** Options of `CallHistoryWriter`. */
export interface CallHistoryWriterOptions {
  readonly log: Logger
  /** Records queued at most; beyond this they are dropped and counted. Default 10,000. */
  readonly capacity?: number
  /** Rows per INSERT. Default 500. */
  readonly batchSize?: number
  /** Milliseconds between writes of a queue that is not yet a full batch. Default 1000. */
  readonly flushMs?: number
}

/** Drops are logged at most this often. */
const DROP_LOG_INTERVAL_MS = 60_000

/** Writes call records to `call_history` in batches. */
export class CallHistoryWriter implements CallHistorySink {
  readonly #db: Kysely<Database>
  readonly #log: Logger
  readonly #capacity: number
  readonly #batchSize: number
  readonly #queue: CallRecord[] = []
  /** The INSERT, compiled once per row count. */
  readonly #inserts = new RowStatements<Database, CallHistoryRow>(COLUMNS)
  readonly #timer: NodeJS.Timeout
  #writing: Promise<void> | null = null
  #keeps: ((tunnelId: string) => boolean | Promise<boolean>) | null = null
  #dropped = 0
  #droppedLogged = 0
  #lastDropLog = 0
  #closed = false

  constructor(db: Kysely<Database>, options: CallHistoryWriterOptions) {
    this.#db = db
    this.#log = options.log
    this.#capacity = options.capacity ?? 10_000
    this.#batchSize = options.batchSize ?? 500
    this.#timer = setInterval(() => void this.flush(), options.flushMs ?? 1000)
    this.#timer.unref()
  }

  keepContentIf(keeps: (tunnelId: string) => boolean | Promise<boolean>): void {
    this.#keeps = keeps
  }

  /** Records dropped so far (queue full, or a batch the database refused). */
  get dropped(): number {
    return this.#dropped
  }

  /** Records waiting to be written. */
  get queued(): number {
    return this.#queue.length
  }

  record(record: CallRecord): void {
    if (this.#closed) {
      this.#drop(1, 'burrowd is stopping (the history writer is closed)')
      return
    }
    if (this.#queue.length >= this.#capacity) {
      this.#drop(1, 'the queue is full (the database is behind)')
      return
    }
    this.#queue.push(record)
    if (this.#queue.length === this.#batchSize) setImmediate(() => void this.flush())
  }

  /** Write everything queued now (one batch after another); never rejects. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing
    if (this.#queue.length === 0) return
    this.#writing = this.#writeAll().finally(() => {
      this.#writing = null
    })
    await this.#writing
  }

  /** Stop taking records and write what is queued. */
  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#timer)
    await this.flush()
    // Kept back by a stalled database: counted and logged as dropped, not lost unsaid.
    const left = this.#queue.splice(0)
    if (left.length > 0) this.#drop(left.length, 'burrowd stopped while the database stalled')
  }

  async #writeAll(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batchSize)
      // The database stalled: the rest waits for the next write (each statement would wait the
      // full bound, holding the next flushes and burrowd's shutdown).
      if (!(await this.#write(batch))) return
    }
  }

  /**
   * The database stalled writing `batch`: it waits at the front of the queue when it never
   * reached the database; else it may have been written, and goes (a record written twice would
   * be refused by its id, one given again a new id would not).
   */
  #stalled(batch: readonly CallRecord[], error: Error): false {
    if (neverSent(error)) this.#queue.unshift(...batch)
    else this.#drop(batch.length, `writing failed: ${error.message}`)
    return false
  }

  /** The tunnels of `batch` whose content may no longer be kept. */
  async #contentless(batch: readonly CallRecord[]): Promise<ReadonlySet<string>> {
    const keeps = this.#keeps
    const gone = new Set<string>()
    if (keeps === null) return gone
    for (const tunnelId of new Set(batch.map((r) => r.tunnelId))) {
      const kept = await Promise.resolve(keeps(tunnelId)).catch(() => false)
      if (!kept) gone.add(tunnelId)
    }
    return gone
  }

  /** Write `batch`; false when the database stalled, and nothing more should be tried now. */
  async #write(batch: readonly CallRecord[]): Promise<boolean> {
    const contentless = await this.#contentless(batch)
    const rows = batch.map((r): CallHistoryRow => ({
      id: r.id ?? newCallId(r.at),
      tunnel_id: r.tunnelId,
      at: r.at.toISOString(),
      method: r.method,
      tool: r.tool,
      status: r.status,
      policy_code: r.policyCode,
      duration_ms: Math.max(0, Math.round(r.durationMs)),
      session_id: r.sessionId ?? null,
      rpc_id: r.rpcId ?? null,
      agent: r.agent ?? null,
      outcome: r.outcome ?? (r.policyCode === null ? 'ok' : 'refused'),
      bytes_in: r.bytesIn ?? null,
      bytes_out: r.bytesOut ?? null,
      request_body: contentless.has(r.tunnelId) ? null : (r.requestBody ?? null),
      response_body: contentless.has(r.tunnelId) ? null : (r.responseBody ?? null),
      bodies_cut: r.bodiesCut ? 1 : 0,
      continues: r.continues ?? null,
    }))
    try {
      await this.#insert(rows)
    } catch (error) {
      if (isDatabaseStalled(error as Error)) return this.#stalled(batch, error as Error)
      // Most likely a tunnel deleted meanwhile (the foreign key): keep the rest of the batch.
      let existing: ReadonlySet<string>
      try {
        existing = await this.#existingTunnels(rows)
      } catch (error) {
        if (isDatabaseStalled(error as Error)) return this.#stalled(batch, error as Error)
        // The database itself is failing: the batch goes, after two statements.
        this.#drop(rows.length, `writing failed: ${(error as Error).message}`)
        return false
      }
      const kept = batch.flatMap((r, i) => (existing.has(r.tunnelId) ? [i] : []))
      try {
        await this.#insert(kept.map((i) => rows[i]!))
      } catch (error) {
        // The database stalled: these records wait (or go) as a stalled batch's do.
        if (isDatabaseStalled(error as Error)) {
          return this.#stalled(
            kept.map((i) => batch[i]!),
            error as Error,
          )
        }
        // Else a row the database refuses: one at a time, so that one tunnel's row cannot cost
        // the others theirs.
        const written = await this.#insertEach(kept.map((i) => [batch[i]!, rows[i]!] as const))
        if (written === null) return false
        if (written < rows.length) {
          this.#log.debug(`call history: ${rows.length - written} records not written`)
        }
        return true
      }
      if (kept.length < rows.length) {
        this.#log.debug(`call history: ${rows.length - kept.length} records not written`)
      }
    }
    return true
  }

  /**
   * Insert each of `pairs` (a record and its row) alone; returns how many were written, and
   * counts the others dropped, or null when the database stalled: the record it stalled on and
   * those after it then wait or go as a stalled batch's do. Rows that fail several in a row mean
   * the database, not a row, is at fault: the rest are dropped then.
   */
  async #insertEach(
    pairs: readonly (readonly [CallRecord, CallHistoryRow])[],
  ): Promise<number | null> {
    let written = 0
    let failed = 0
    for (let i = 0; i < pairs.length; i++) {
      try {
        await this.#insert([pairs[i]![1]])
        written++
        failed = 0
      } catch (error) {
        const err = error as Error
        if (isDatabaseStalled(err)) {
          // The one that stalled may have landed (it goes unless never sent); the rest were not
          // tried, and wait for the next write.
          this.#stalled([pairs[i]![0]], err)
          this.#queue.splice(neverSent(err) ? 1 : 0, 0, ...pairs.slice(i + 1).map(([r]) => r))
          return null
        }
        if (++failed < MAX_FAILED_ROWS_IN_A_ROW) {
          this.#drop(1, `writing failed: ${err.message}`)
          continue
        }
        this.#drop(pairs.length - i, `writing failed: ${err.message}`)
        break
      }
    }
    return written
  }

  #insert(rows: readonly CallHistoryRow[]): Promise<void> {
    return this.#inserts.run(this.#db, 'insert', rows, (db, some) =>
      db.insertInto('call_history').values(some),
    )
  }

  /** The tunnels of `rows` that exist. */
  async #existingTunnels(rows: readonly CallHistoryRow[]): Promise<ReadonlySet<string>> {
    const ids = [...new Set(rows.map((r) => r.tunnel_id))]
    const found = await this.#db.selectFrom('tunnels').select('id').where('id', 'in', ids).execute()
    return new Set(found.map((t) => t.id))
  }

  #drop(count: number, why: string): void {
    this.#dropped += count
    const now = Date.now()
    if (now - this.#lastDropLog < DROP_LOG_INTERVAL_MS) return
    this.#lastDropLog = now
    const since = this.#dropped - this.#droppedLogged
    this.#droppedLogged = this.#dropped
    this.#log.warn(`call history: dropped ${since} records (${this.#dropped} in all): ${why}`)
  }
}
