/**
 * The DNS checks of custom domains in the database (`custom_domains`, migrations 012 and 035):
 * which domains are due, a scheduled check's claim on one and its release when the check fails,
 * and storing a check's result, in the order the checks began. `CustomDomainStore` exposes them.
 *
 * Each check takes the next number of the domain's `checks_begun` as it begins (the owner's
 * "Check now" and a node's scheduled check alike), and its result is stored only when no check
 * begun later has stored one (`stored_check`): before, a scheduled check that began before the
 * owner's and ended after it wrote its older DNS answer over the owner's newer one.
 */
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely'
import { toDomain } from './custom-domain-row.js'
import type { CheckOutcome, CustomDomain, CustomDomainState } from './custom-domain-row.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'

type Row = Selectable<Database['custom_domains']>

/** A scheduled check's hold on a domain (`claimCheck`). */
export interface CheckClaim {
  /** The check's number. */
  readonly check: number
  /** When it was claimed: the domain's `checked_at` while the check runs. */
  readonly at: Date
  /** The domain's `checked_at` before the claim, put back if the check fails. */
  readonly before: Date | null
}

/** What `recordCheck` did. */
export interface RecordedCheck {
  /** The row as stored now: with this check's result, or with a newer check's. */
  readonly domain: CustomDomain
  /** False when a check begun later had stored its result first: this one's was dropped. */
  readonly stored: boolean
  /** This check's result changed the domain's state. */
  readonly changed: boolean
}

/** How long after its `failures`-th failure in a row a scheduled check of a domain is retried. */
export type RetryDelay = (failures: number, state: CustomDomainState) => number

/**
 * Domains due for a re-check at `now`: pending ones not checked for `pendingMs`, verified ones
 * not checked for `verifiedMs`, and those whose failed check's retry time has come (a domain
 * waiting for its retry is not due before it); the longest-waiting first, at most `limit`.
 */
export async function dueDomains(
  db: Kysely<Database>,
  now: Date,
  pendingMs: number,
  verifiedMs: number,
  limit: number,
): Promise<CustomDomain[]> {
  const pendingBefore = new Date(now.getTime() - pendingMs).toISOString()
  const verifiedBefore = new Date(now.getTime() - verifiedMs).toISOString()
  const rows = await db
    .selectFrom('custom_domains')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([
          eb('retry_at', 'is', null),
          eb.or([
            eb('checked_at', 'is', null),
            eb.and([eb('state', '=', 'pending'), eb('checked_at', '<=', pendingBefore)]),
            eb.and([eb('state', '=', 'verified'), eb('checked_at', '<=', verifiedBefore)]),
          ]),
        ]),
        eb('retry_at', '<=', now.toISOString()),
      ]),
    )
    .orderBy(sql`coalesce(checked_at, created_at)`)
    .limit(limit)
    .execute()
  return rows.map(toDomain)
}

/** Begin a check of domain `id` (the owner's): its number, or undefined when the domain is gone. */
export async function beginCheck(db: Kysely<Database>, id: string): Promise<number | undefined> {
  const row = await db
    .updateTable('custom_domains')
    .set((eb) => ({ checks_begun: eb('checks_begun', '+', 1) }))
    .where('id', '=', id)
    .returning(['checks_begun'])
    .executeTakeFirst()
  return row && Number(row.checks_begun)
}

/**
 * Take domain `d` for a scheduled check at `at`, when no check has begun since `due` read it and
 * its last check is still the one read: its `checked_at` moves to `at`, so it is no longer due
 * for any node, and the check takes its number. Null when another node, or its owner, began one.
 */
export async function claimCheck(
  db: Kysely<Database>,
  d: CustomDomain,
  at: Date,
): Promise<CheckClaim | null> {
  const row = await db
    .updateTable('custom_domains')
    .set((eb) => ({
      checked_at: at.toISOString(),
      checks_begun: eb('checks_begun', '+', 1),
      retry_at: null,
    }))
    .where('id', '=', d.id)
    .where('checks_begun', '=', d.checksBegun)
    // Also the time read: a node of the version before 035 claims by it alone.
    .where((eb) =>
      d.checkedAt === null
        ? eb('checked_at', 'is', null)
        : eb('checked_at', '=', d.checkedAt.toISOString()),
    )
    .returning(['checks_begun'])
    .executeTakeFirst()
  return row === undefined ? null : { check: Number(row.checks_begun), at, before: d.checkedAt }
}

/**
 * A claimed check of domain `id` failed at `at` before storing a result (a database error, a
 * bug): its `checked_at` goes back to what it was (the owner is not shown a check that did not
 * happen), and it is due again after `delay` of its failures in a row. Nothing changes when a
 * result was stored since the claim (none is missing). Returns the retry time, or null.
 */
export async function releaseClaim(
  db: Kysely<Database>,
  id: string,
  claim: CheckClaim,
  at: Date,
  delay: RetryDelay,
): Promise<Date | null> {
  const claimedAt = claim.at.toISOString()
  const row = await db
    .selectFrom('custom_domains')
    .select(['state', 'checked_at', 'stored_check', 'failed_checks'])
    .where('id', '=', id)
    .executeTakeFirst()
  if (row === undefined || row.checked_at !== claimedAt || row.stored_check >= claim.check) {
    return null
  }
  const failures = Number(row.failed_checks)
  const state = row.state === 'verified' ? 'verified' : 'pending'
  const retry = new Date(at.getTime() + delay(failures, state))
  const released = await db
    .updateTable('custom_domains')
    .set({
      checked_at: claim.before?.toISOString() ?? null,
      retry_at: retry.toISOString(),
      failed_checks: failures + 1,
    })
    .where('id', '=', id)
    .where('checked_at', '=', claimedAt)
    .where('stored_check', '=', row.stored_check)
    .where('failed_checks', '=', row.failed_checks)
    .executeTakeFirst()
  return Number(released.numUpdatedRows) === 1 ? retry : null
}

/**
 * Store what check number `check` of domain `id` found at `at`, unless a check begun later has
 * stored its result already (see `RecordedCheck`). A success verifies the domain, unless another
 * account verified the same domain first (then it stays pending and says so). A failure keeps a
 * verified domain verified (noting since when it fails) unless it has failed for the outcome's
 * `lapseAfterMs`, which returns it to pending. A check the resolver did not answer changes
 * neither state nor the failure's start, only what the owner is shown. A stored result ends
 * any wait for a retry. Undefined when the domain is gone.
 */
export async function recordCheck(
  db: Kysely<Database>,
  id: string,
  outcome: CheckOutcome,
  at: Date,
  check: number,
): Promise<RecordedCheck | undefined> {
  const when = at.toISOString()
  try {
    return await storeResult(db, id, check, (trx, row) => resultOf(trx, row, outcome, at))
  } catch (err) {
    // Another account's row was verified between our look and our write (the partial unique
    // index refused ours): this one stays pending and says why.
    if (!isUniqueViolation(err)) throw err
    return storeResult(db, id, check, async (_, row) => ({
      checked_at: when,
      problem: claimedError(row.domain).message,
    }))
  }
}

/**
 * Write `update(row)` with the result's marks, if the stored result is not newer than check
 * `check`; again from a fresh read when another result was stored between the read and the write.
 */
async function storeResult(
  db: Kysely<Database>,
  id: string,
  check: number,
  update: (trx: Kysely<Database>, row: Row) => Promise<Updateable<Database['custom_domains']>>,
): Promise<RecordedCheck | undefined> {
  for (;;) {
    const result = await db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('custom_domains')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
      if (row === undefined) return undefined
      if (row.stored_check > check) return { domain: toDomain(row), stored: false, changed: false }
      const stored = await trx
        .updateTable('custom_domains')
        .set({ ...(await update(trx, row)), stored_check: check, retry_at: null, failed_checks: 0 })
        .where('id', '=', id)
        .where('stored_check', '=', row.stored_check)
        .returningAll()
        .executeTakeFirst()
      if (stored === undefined) return 'again' as const
      return { domain: toDomain(stored), stored: true, changed: stored.state !== row.state }
    })
    if (result !== 'again') return result
  }
}

/** The columns a check's `outcome` at `at` sets on `row`. */
async function resultOf(
  db: Kysely<Database>,
  row: Row,
  outcome: CheckOutcome,
  at: Date,
): Promise<Updateable<Database['custom_domains']>> {
  const when = at.toISOString()
  if (outcome.kind === 'verified') {
    if (row.state !== 'verified' && (await verifiedElsewhere(db, row.domain, row.account_id))) {
      return { checked_at: when, problem: claimedError(row.domain).message }
    }
    return {
      state: 'verified',
      checked_at: when,
      verified_at: row.verified_at ?? when,
      failing_since: null,
      problem: null,
    }
  }
  if (outcome.kind === 'unanswered') return { checked_at: when, problem: outcome.problem }
  const lapse =
    row.failing_since !== null &&
    at.getTime() - new Date(row.failing_since).getTime() >= outcome.lapseAfterMs
  if (row.state === 'verified' && !lapse) {
    return { checked_at: when, failing_since: row.failing_since ?? when, problem: outcome.problem }
  }
  return {
    state: 'pending',
    checked_at: when,
    verified_at: null,
    failing_since: null,
    problem: outcome.problem,
  }
}

/** Whether an account other than `accountId` has verified `domain`. */
export async function verifiedElsewhere(
  db: Kysely<Database>,
  domain: string,
  accountId: string,
): Promise<boolean> {
  const other = await db
    .selectFrom('custom_domains')
    .select(['id'])
    .where('domain', '=', domain)
    .where('state', '=', 'verified')
    .where('account_id', '!=', accountId)
    .executeTakeFirst()
  return other !== undefined
}

/** The refusal of `domain` to an account while another has it verified. */
export function claimedError(domain: string): StoreError {
  return new StoreError(
    'conflict',
    `${domain} is already verified by another account; it must remove the domain before this one can use it`,
  )
}

/** A unique-constraint failure, from SQLite or PostgreSQL. */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}
