/**
 * Which due webhook deliveries a node sends next: its places go by turns between accounts, not
 * to the oldest due delivery. Every account with a due delivery and a place left (fewer than its
 * share in flight) is a candidate, read in one grouped query (the index of pending deliveries by
 * account and due time, migration 030); those with fewer in flight go first, then the one served
 * longest ago (remembered here, per node), then the one waiting longest, one place each per
 * round, each taking its oldest due deliveries. Before, the oldest due went first whatever its
 * account: eight accounts whose receivers answered just before the deadline held all 16 places,
 * and another account's delivery waited behind their whole backlog (found by a hostile review);
 * and a look-ahead of the oldest rows, however it left accounts out, could be filled by one
 * account's backlog (found by a review).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'

/** A due delivery as read, before its payload. */
export interface DueRow {
  readonly id: string
  readonly endpoint_id: string
  readonly account_id: string
  readonly attempts: number
  readonly next_attempt_at: string | null
  readonly postponed_since: string | null
  readonly url: string
  readonly secret: string
  readonly previous_secret: string | null
  readonly previous_secret_expires_at: string | null
}

/** What the node has in flight: attempts per account, and the deliveries (`endpoint id` + ` ` + `id`). */
export interface InFlight {
  readonly accounts: ReadonlyMap<string, number>
  readonly deliveries: { has(key: string): boolean }
}

/** Accounts whose last turn is remembered; past it, those served longest ago are forgotten. */
const MAX_SERVED_ACCOUNTS = 10_000

/** The turns of one node's dispatcher. */
export class DeliveryTurns {
  readonly #db: Kysely<Database>
  /** When each account was last given a place, as a count of places given (`#serves`). */
  readonly #servedAt = new Map<string, number>()
  #serves = 0

  constructor(db: Kysely<Database>) {
    this.#db = db
  }

  /**
   * At most `limit` deliveries due at `now` (ISO) to send next, at most `perAccount` of one
   * account's counting those in flight; each account picked is marked served.
   */
  async pick(
    now: string,
    limit: number,
    perAccount: number,
    inFlight: InFlight,
  ): Promise<DueRow[]> {
    const busyOf = (account: string) => inFlight.accounts.get(account) ?? 0
    const full = [...inFlight.accounts].filter(([, n]) => n >= perAccount).map(([a]) => a)
    let candidates = this.#db
      .selectFrom('webhook_deliveries')
      .select(['account_id', (eb) => eb.fn.min('next_attempt_at').as('due')])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .groupBy('account_id')
    if (full.length > 0) candidates = candidates.where('account_id', 'not in', full)
    const accounts = (await candidates.execute()).map((c) => ({
      id: c.account_id,
      due: String(c.due),
      busy: busyOf(c.account_id),
      served: this.#servedAt.get(c.account_id) ?? 0,
    }))
    accounts.sort(
      (x, y) =>
        x.busy - y.busy || x.served - y.served || (x.due < y.due ? -1 : x.due > y.due ? 1 : 0),
    )
    // Rounds of one place each, in that order, until the places or the accounts' own run out.
    // An account's rows are read when it first gets a place; one with none to send (its due
    // deliveries are on disabled endpoints, or were just claimed by another node) gives its
    // place to the next.
    const picked: DueRow[] = []
    const taken = new Map<string, number>()
    const rowsOf = new Map<string, DueRow[]>()
    for (let round = 0; round < perAccount && picked.length < limit; round++) {
      for (const account of accounts) {
        if (picked.length >= limit) break
        const mine = taken.get(account.id) ?? 0
        if (mine !== round || account.busy + mine >= perAccount) continue
        let rows = rowsOf.get(account.id)
        if (rows === undefined) {
          const read = await this.#dueRows(now, account.id, perAccount + account.busy)
          rows = read.filter((row) => !inFlight.deliveries.has(`${row.endpoint_id} ${row.id}`))
          rowsOf.set(account.id, rows)
        }
        const next = rows.shift()
        if (next === undefined) continue
        taken.set(account.id, mine + 1)
        picked.push(next)
      }
    }
    for (const row of picked) this.#servedAt.set(row.account_id, ++this.#serves)
    if (this.#servedAt.size > MAX_SERVED_ACCOUNTS) this.#forgetServed()
    return picked
  }

  /** At most `limit` due deliveries of account `accountId`, oldest due first. */
  async #dueRows(now: string, accountId: string, limit: number): Promise<DueRow[]> {
    return this.#db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.endpoint_id', 'd.account_id', 'd.attempts', 'd.next_attempt_at'])
      .select('d.postponed_since')
      .select(['e.url', 'e.secret', 'e.previous_secret', 'e.previous_secret_expires_at'])
      .where('d.account_id', '=', accountId)
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where('e.disabled_at', 'is', null)
      .orderBy('d.next_attempt_at')
      .limit(limit)
      .execute()
  }

  /** Keep the order of the accounts served most recently, forgetting the rest (served long ago). */
  #forgetServed(): void {
    const kept = [...this.#servedAt].sort((x, y) => y[1] - x[1]).slice(0, MAX_SERVED_ACCOUNTS / 2)
    this.#servedAt.clear()
    for (const [account, at] of kept) this.#servedAt.set(account, at)
  }
}
