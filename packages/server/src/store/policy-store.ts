/**
 * Tunnels' governance policies in the database: the current document and the newest 100
 * versions, with who changed them and when. A change is one upsert that takes the next version
 * number (so concurrent changes each get their own), the version row, and the deletion of the
 * version 100 before it, in one transaction under the account's lock (which checks the
 * request's credential again: `acting-credential.ts`). Turning zero-knowledge mode on erases the
 * content kept of the tunnel before: its pins' definitions in the same transaction, its call
 * history's bodies right after it, in batches (and `Policies` all of it once more a little later).
 * The transaction also notes the erasure as pending (a setting, `erase-content:<tunnel>`), cleared
 * once the bodies are gone: an erasure a failure or a restart cut short is taken up again.
 */
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'
import { eraseToolDefinitions } from './tool-pins-store.js'
import { lockAccount } from './lock-account.js'
import { eraseHistoryBodies } from './tunnel-history-batches.js'

/** The setting that says a tunnel's content is still to be erased (its key's prefix). */
const PENDING_ERASURE = 'erase-content:'

/** Versions kept per tunnel; older ones are deleted as new ones are written. */
export const KEPT_POLICY_VERSIONS = 100

/** A stored policy document with its version. */
export interface StoredPolicy {
  readonly version: number
  /** The document as JSON text. */
  readonly document: string
  readonly updatedAt: string
  readonly updatedBy: string
}

/** The `tunnel_policies` and `policy_versions` queries. */
export class PolicyStore {
  readonly #db: Kysely<Database>

  constructor(db: Kysely<Database>) {
    this.#db = db
  }

  /** The tunnel's current policy, or undefined when it never had one (the default applies). */
  async get(tunnelId: string): Promise<StoredPolicy | undefined> {
    const row = await this.#db
      .selectFrom('tunnel_policies')
      .select(['version', 'document', 'updated_at', 'updated_by'])
      .where('tunnel_id', '=', tunnelId)
      .executeTakeFirst()
    return row === undefined
      ? undefined
      : {
          version: Number(row.version),
          document: row.document,
          updatedAt: row.updated_at,
          updatedBy: row.updated_by,
        }
  }

  /**
   * Store `document` as the tunnel's policy; returns its version, and whether this write turned
   * zero-knowledge mode on and so erased the content kept before.
   */
  async set(
    tunnelId: string,
    document: string,
    by: string,
    at: Date,
    /**
     * `eraseContent`: the document turns zero-knowledge on; if it was off, erase what was kept.
     * `expectVersion`: write only if the tunnel's policy is still at this version (0: the
     * default), checked under the account's lock; otherwise nothing is written, `conflict` is
     * set and `version` is the one it is at.
     */
    opts: { readonly eraseContent?: boolean; readonly expectVersion?: number } = {},
  ): Promise<{ version: number; erased: boolean; eraseFailed?: Error; conflict?: true }> {
    const when = at.toISOString()
    // Under the account's lock, which checks again that the credential the request acts with
    // still exists (a policy's body can arrive after its API token was revoked). The tunnel's
    // account never changes: read first, so that the lock's write is the transaction's first
    // statement (tunnel-access-store.ts says why SQLite needs that).
    const tunnel = await this.#db
      .selectFrom('tunnels')
      .select('account_id')
      .where('id', '=', tunnelId)
      .executeTakeFirst()
    const stored = await this.#db.transaction().execute(async (trx) => {
      if (tunnel !== undefined) await lockAccount(trx, tunnel.account_id)
      if (opts.expectVersion !== undefined) {
        // A document edited from an older version would undo the changes made since (a stale
        // tab turning zero-knowledge mode off again): refused, nothing written.
        const current = await trx
          .selectFrom('tunnel_policies')
          .select('version')
          .where('tunnel_id', '=', tunnelId)
          .executeTakeFirst()
        const version = current === undefined ? 0 : Number(current.version)
        if (version !== opts.expectVersion)
          return { version, erased: false, conflict: true as const }
      }
      const erased = opts.eraseContent === true && !(await storedZeroKnowledge(trx, tunnelId))
      if (erased) {
        await eraseToolDefinitions(trx, tunnelId)
        await trx
          .insertInto('settings')
          .values({ key: `${PENDING_ERASURE}${tunnelId}`, value: when })
          .onConflict((oc) => oc.column('key').doNothing())
          .execute()
      }
      const row = await trx
        .insertInto('tunnel_policies')
        .values({ tunnel_id: tunnelId, version: 1, document, updated_at: when, updated_by: by })
        .onConflict((oc) =>
          oc.column('tunnel_id').doUpdateSet((eb) => ({
            version: eb('tunnel_policies.version', '+', 1),
            document: eb.ref('excluded.document'),
            updated_at: eb.ref('excluded.updated_at'),
            updated_by: eb.ref('excluded.updated_by'),
          })),
        )
        .returning('version')
        .executeTakeFirstOrThrow()
      const version = Number(row.version)
      await trx
        .insertInto('policy_versions')
        .values({ tunnel_id: tunnelId, version, document, changed_at: when, changed_by: by })
        .execute()
      await trx
        .deleteFrom('policy_versions')
        .where('tunnel_id', '=', tunnelId)
        .where('version', '<=', version - KEPT_POLICY_VERSIONS)
        .execute()
      return { version, erased }
    })
    // Outside the account's lock, in batches; the views hide the bodies from the commit on.
    // The policy is in force whatever happens here: a failure is returned, not thrown, and the
    // erasure stays pending.
    if (!stored.erased) return stored
    try {
      await this.#eraseBodies(tunnelId)
      return stored
    } catch (error) {
      return { ...stored, eraseFailed: error as Error }
    }
  }

  /** Erase the tunnel's history bodies, then note the erasure done. */
  async #eraseBodies(tunnelId: string): Promise<void> {
    await eraseHistoryBodies(this.#db, tunnelId)
    await this.#db
      .deleteFrom('settings')
      .where('key', '=', `${PENDING_ERASURE}${tunnelId}`)
      .execute()
  }

  /** The tunnels whose erasure of content is pending (cut short by a failure or a restart). */
  async pendingErasures(): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('settings')
      .select('key')
      .where('key', 'like', `${PENDING_ERASURE}%`)
      .execute()
    return rows.map((r) => r.key.slice(PENDING_ERASURE.length))
  }

  /**
   * Erase the content kept of the tunnel's traffic again if its policy is still in zero-knowledge
   * mode: what another node wrote in the moments after the mode was turned on, before it heard.
   */
  async eraseContentIfZeroKnowledge(tunnelId: string): Promise<void> {
    const zeroKnowledge = await this.#db.transaction().execute(async (trx) => {
      const on = await storedZeroKnowledge(trx, tunnelId)
      if (on) await eraseToolDefinitions(trx, tunnelId)
      return on
    })
    if (zeroKnowledge) await this.#eraseBodies(tunnelId)
    else {
      // Turned off again, or the tunnel deleted: nothing is pending any more.
      await this.#db
        .deleteFrom('settings')
        .where('key', '=', `${PENDING_ERASURE}${tunnelId}`)
        .execute()
    }
  }

  /** The tunnel's policy versions, newest first. */
  async versions(
    tunnelId: string,
    limit = 50,
  ): Promise<{ version: number; changedAt: string; changedBy: string; document: string }[]> {
    const rows = await this.#db
      .selectFrom('policy_versions')
      .select(['version', 'changed_at', 'changed_by', 'document'])
      .where('tunnel_id', '=', tunnelId)
      .orderBy('version', 'desc')
      .limit(limit)
      .execute()
    return rows.map((r) => ({
      version: Number(r.version),
      changedAt: r.changed_at,
      changedBy: r.changed_by,
      document: r.document,
    }))
  }
}

/**
 * Whether the tunnel's stored policy is in zero-knowledge mode (in a policy change: already, so
 * nothing to erase; for the Traffic views: bodies not shown, whatever the erasure's state).
 */
export async function storedZeroKnowledge(
  db: Kysely<Database>,
  tunnelId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('tunnel_policies')
    .select('document')
    .where('tunnel_id', '=', tunnelId)
    .executeTakeFirst()
  if (row === undefined) return false
  try {
    return (JSON.parse(row.document) as { zero_knowledge?: unknown }).zero_knowledge === true
  } catch {
    return false
  }
}
