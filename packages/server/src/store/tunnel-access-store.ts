/**
 * Tunnels' access settings (`tunnel_access`): mode and IP allowlist. A tunnel without a row is
 * `oauth` with no allowlist, so a tunnel made any way is safe until its owner opens it. Reached
 * as `new TunnelAccessStore(store.db)`.
 */
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'
import { lockAccount } from './lock-account.js'
import {
  DEFAULT_ACCESS,
  storedAccessMode,
  type AccessMode,
  type TunnelAccess,
} from './tunnel-access-row.js'

/** Queries over `tunnel_access`. */
export class TunnelAccessStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date = () => new Date()) {
    this.#db = db
    this.#now = now
  }

  /** Tunnel `tunnelId`'s settings (the default when none are stored). */
  async get(tunnelId: string): Promise<TunnelAccess> {
    const row = await this.#db
      .selectFrom('tunnel_access')
      .select(['mode', 'allow_ips'])
      .where('tunnel_id', '=', tunnelId)
      .executeTakeFirst()
    if (row === undefined) return DEFAULT_ACCESS
    return { mode: storedAccessMode(row.mode), allowIps: JSON.parse(row.allow_ips) as string[] }
  }

  /** The mode of each of `tunnelIds`, in one query (the default for those without settings). */
  async modes(tunnelIds: readonly string[]): Promise<Map<string, AccessMode>> {
    const out = new Map<string, AccessMode>(tunnelIds.map((id) => [id, DEFAULT_ACCESS.mode]))
    if (tunnelIds.length === 0) return out
    const rows = await this.#db
      .selectFrom('tunnel_access')
      .select(['tunnel_id', 'mode'])
      .where('tunnel_id', 'in', [...tunnelIds])
      .execute()
    for (const row of rows) out.set(row.tunnel_id, storedAccessMode(row.mode))
    return out
  }

  /**
   * Store tunnel `tunnelId`'s settings (already parsed), replacing what was there, under its
   * account's lock (which checks the credential the request acts with again: who may call a
   * tunnel is a credential's worth).
   */
  async set(tunnelId: string, access: TunnelAccess): Promise<TunnelAccess> {
    const values = {
      mode: access.mode,
      allow_ips: JSON.stringify(access.allowIps),
      updated_at: this.#now().toISOString(),
    }
    // The tunnel's account never changes: read it before the transaction, whose first statement
    // is then the lock's write. On SQLite a transaction that reads first and writes later fails
    // at once ("database is locked", no busy wait) when another process (`burrowd serve` beside
    // the operator's `burrowd tunnel create`) wrote in between.
    const tunnel = await this.#db
      .selectFrom('tunnels')
      .select('account_id')
      .where('id', '=', tunnelId)
      .executeTakeFirst()
    await this.#db.transaction().execute(async (trx) => {
      if (tunnel !== undefined) await lockAccount(trx, tunnel.account_id)
      await trx
        .insertInto('tunnel_access')
        .values({ tunnel_id: tunnelId, ...values })
        .onConflict((oc) => oc.column('tunnel_id').doUpdateSet(values))
        .execute()
    })
    return { mode: access.mode, allowIps: [...access.allowIps] }
  }
}
