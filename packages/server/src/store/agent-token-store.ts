/**
 * Agent tokens (`agent_tokens`): static bearer secrets (`atk_…`) that let an agent call one
 * tunnel in `token` mode. The secret is shown once when made; the row keeps its SHA-256, the
 * name the owner chose and when it was last used. Every query is scoped to the tunnel.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import { hashKey } from './hash-key.js'
import { lockAccount } from './lock-account.js'
import { newSecret } from './random-token.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'

/** Prefix of every agent token; tells it apart from `mtk_` and `btk_` keys at a glance. */
export const AGENT_TOKEN_PREFIX = 'atk_'

/** Most agent tokens one tunnel holds. */
export const MAX_AGENT_TOKENS = 50

/** An agent token as its owner sees it (never the secret). */
export interface AgentToken {
  /** `agt_` + random hex. */
  readonly id: string
  readonly tunnelId: string
  readonly name: string
  readonly createdAt: Date
  /** The last call it authenticated (up to a minute behind); null when never used. */
  readonly lastUsedAt: Date | null
}

const NAME_MAX = 100
const LAST_USED_RESOLUTION_MS = 60_000
const SECRET = /^atk_[A-Za-z0-9_-]{43}$/

/** Queries over `agent_tokens`. */
export class AgentTokenStore {
  readonly #db: Kysely<Database>
  readonly #now: () => Date

  constructor(db: Kysely<Database>, now: () => Date = () => new Date()) {
    this.#db = db
    this.#now = now
  }

  /**
   * Make a token for tunnel `tunnelId` named `name` (1 to 100 printable characters). Returns it
   * with its `secret`, which exists only here. Throws `StoreError` `invalid` for a bad name or
   * when the tunnel already has `MAX_AGENT_TOKENS`, `not_found` for an unknown tunnel.
   */
  async create(tunnelId: string, name: string): Promise<{ token: AgentToken; secret: string }> {
    const trimmed = name.trim()
    if (trimmed === '' || [...trimmed].length > NAME_MAX || /\p{Cc}/u.test(trimmed)) {
      throw new StoreError(
        'invalid',
        `agent token name must be 1 to ${NAME_MAX} printable characters, e.g. the agent that uses it`,
      )
    }
    const secret = AGENT_TOKEN_PREFIX + newSecret()
    // The count and the insert in one transaction holding the owner's account lock, so that
    // creates at once cannot all pass the cap.
    const row = await this.#db.transaction().execute(async (trx) => {
      const tunnel = await trx
        .selectFrom('tunnels')
        .select('account_id')
        .where('id', '=', tunnelId)
        .executeTakeFirst()
      if (tunnel === undefined || (await lockAccount(trx, tunnel.account_id)) === undefined) {
        throw new StoreError('not_found', `tunnel "${tunnelId}" does not exist`)
      }
      const count = await trx
        .selectFrom('agent_tokens')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
        .where('tunnel_id', '=', tunnelId)
        .executeTakeFirstOrThrow()
      if (Number(count.n) >= MAX_AGENT_TOKENS) {
        throw new StoreError(
          'invalid',
          `a tunnel holds at most ${MAX_AGENT_TOKENS} agent tokens; revoke one you no longer use`,
        )
      }
      return trx
        .insertInto('agent_tokens')
        .values({
          id: 'agt_' + randomBytes(10).toString('hex'),
          tunnel_id: tunnelId,
          name: trimmed,
          token_hash: hashKey(secret),
          created_at: this.#now().toISOString(),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    })
    return { token: toAgentToken(row), secret }
  }

  /** The tunnel's tokens, newest first. */
  async list(tunnelId: string): Promise<AgentToken[]> {
    const rows = await this.#db
      .selectFrom('agent_tokens')
      .selectAll()
      .where('tunnel_id', '=', tunnelId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return rows.map(toAgentToken)
  }

  /** Revoke token `id` of tunnel `tunnelId`; false when the tunnel has no such token. */
  async revoke(tunnelId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('agent_tokens')
      .where('id', '=', id)
      .where('tunnel_id', '=', tunnelId)
      .executeTakeFirst()
    return result.numDeletedRows > 0n
  }

  /** Revoke every token of tunnel `tunnelId`; how many there were. */
  async revokeAll(tunnelId: string): Promise<number> {
    const result = await this.#db
      .deleteFrom('agent_tokens')
      .where('tunnel_id', '=', tunnelId)
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /**
   * The token `secret` is, if it is one of tunnel `tunnelId`'s (a token of another tunnel is
   * refused); records its use at most once a minute.
   */
  async authenticate(tunnelId: string, secret: string): Promise<AgentToken | undefined> {
    if (!SECRET.test(secret)) return undefined
    const row = await this.#db
      .selectFrom('agent_tokens')
      .selectAll()
      .where('token_hash', '=', hashKey(secret))
      .where('tunnel_id', '=', tunnelId)
      .executeTakeFirst()
    if (row === undefined) return undefined
    const now = this.#now()
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString()
    if (row.last_used_at === null || row.last_used_at <= stale) {
      await this.#db
        .updateTable('agent_tokens')
        .set({ last_used_at: now.toISOString() })
        .where('id', '=', row.id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', stale)]))
        .execute()
    }
    return toAgentToken(row)
  }
}

function toAgentToken(row: Selectable<Database['agent_tokens']>): AgentToken {
  return {
    id: row.id,
    tunnelId: row.tunnel_id,
    name: row.name,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  }
}
