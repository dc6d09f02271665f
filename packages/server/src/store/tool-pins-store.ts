/**
 * Rug-pull pins in the database: each tunnel's tools with their approved and current
 * definitions, whether its baseline was taken, and the approval history. Changes are written as
 * conditional updates, so that when several nodes see the same change only one of them records
 * it (and sends its one `tool.changed` event).
 */
import type { ExpressionBuilder, Kysely } from 'kysely'
import { PIN_FORM } from '../governance/tool-definition.js'
import {
  isForgotten,
  toPin,
  type Decided,
  type PinRow,
  type PinStatus,
  type PinnedDefinition,
} from './pin-rows.js'
import type { Database } from './schema.js'
import { decidePin } from './pin-decisions.js'
import type { RejectedHash } from './rejected-hashes.js'

export {
  approvedRow,
  type Decided,
  type PinRow,
  type PinStatus,
  type PinnedDefinition,
} from './pin-rows.js'

/** The `tool_baselines`, `tool_pins` and `tool_approvals` queries. */
export class ToolPinsStore {
  readonly #db: Kysely<Database>

  constructor(db: Kysely<Database>) {
    this.#db = db
  }

  /**
   * The tunnel's pins and whether its baseline was taken; apart, by name, the definitions
   * rejected of tools the owner forgot (pin-rows.ts `isForgotten`), which are no pins.
   */
  async load(tunnelId: string): Promise<{
    baselined: boolean
    listChangedAt: string | null
    pins: PinRow[]
    forgotten: Map<string, readonly RejectedHash[]>
  }> {
    const base = await this.#db
      .selectFrom('tool_baselines')
      .select(['taken_at', 'list_changed_at'])
      .where('tunnel_id', '=', tunnelId)
      .executeTakeFirst()
    const rows = await this.#db
      .selectFrom('tool_pins')
      .selectAll()
      .where('tunnel_id', '=', tunnelId)
      .orderBy('name')
      .execute()
    const pins: PinRow[] = []
    const forgotten = new Map<string, readonly RejectedHash[]>()
    for (const pin of rows.map(toPin)) {
      if (!isForgotten(pin)) pins.push(pin)
      else if (pin.rejected.length > 0) forgotten.set(pin.name, pin.rejected)
    }
    return {
      baselined: base !== undefined,
      listChangedAt: base?.list_changed_at ?? null,
      pins,
      forgotten,
    }
  }

  /** Take `tools` as the approved baseline (once: false when a baseline existed). */
  async baseline(
    tunnelId: string,
    tools: readonly (PinnedDefinition & { name: string })[],
    at: Date,
  ): Promise<boolean> {
    const when = at.toISOString()
    return this.#db.transaction().execute(async (trx) => {
      const taken = await trx
        .insertInto('tool_baselines')
        .values({ tunnel_id: tunnelId, taken_at: when })
        .onConflict((oc) => oc.column('tunnel_id').doNothing())
        .returning('tunnel_id')
        .executeTakeFirst()
      if (taken === undefined) return false
      if (tools.length > 0) await this.#insertApproved(trx, tunnelId, tools, when, 'baseline')
      return true
    })
  }

  /** Add approved tools to a baseline still being read (later pages of the first list). */
  async extendBaseline(
    tunnelId: string,
    tools: readonly (PinnedDefinition & { name: string })[],
    at: Date,
  ): Promise<void> {
    if (tools.length > 0)
      await this.#insertApproved(this.#db, tunnelId, tools, at.toISOString(), 'baseline')
  }

  /**
   * Record that `name` is now seen as `current` with `status`: true only for the call that
   * changed the row (another node may have recorded the same change first). A renamed tool
   * carries the approved definition of the tool it was (`renamed.approved`).
   */
  async recordSeen(
    tunnelId: string,
    name: string,
    status: PinStatus,
    current: PinnedDefinition | null,
    at: Date,
    renamed: { readonly from: string; readonly approved: PinnedDefinition } | null = null,
  ): Promise<boolean> {
    const values = {
      status,
      current_hash: current?.hash ?? null,
      current_body_hash: current?.bodyHash ?? null,
      current_definition: current?.definition ?? null,
      current_form: current?.form ?? PIN_FORM,
      renamed_from: renamed?.from ?? null,
      changed_at: at.toISOString(),
      ...(renamed
        ? {
            approved_hash: renamed.approved.hash,
            approved_body_hash: renamed.approved.bodyHash,
            approved_definition: renamed.approved.definition,
            approved_form: renamed.approved.form ?? PIN_FORM,
          }
        : {}),
    }
    const inserted =
      status === 'removed'
        ? undefined
        : await this.#db
            .insertInto('tool_pins')
            .values({ tunnel_id: tunnelId, name, ...values })
            .onConflict((oc) => oc.columns(['tunnel_id', 'name']).doNothing())
            .returning('name')
            .executeTakeFirst()
    if (inserted !== undefined) return true
    // A removal names a tool a row holds; none is inserted for it (the owner forgot it meanwhile).
    let update = this.#db
      .updateTable('tool_pins')
      .set(values)
      .where('tunnel_id', '=', tunnelId)
      .where('name', '=', name)
    update =
      current === null
        ? update.where('status', '!=', status)
        : update.where((eb) =>
            eb.or([
              eb('current_hash', 'is', null),
              eb('current_hash', '!=', current.hash),
              eb('status', '!=', status),
            ]),
          )
    const result = await update.executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /**
   * Pin again in the current form a definition whose hash of an earlier form (`from`) still
   * matches what the server lists: `approved` and/or `current`, each only while it still holds
   * that hash in that form, so nodes doing it at once write it once. Not a change: no event.
   */
  async repin(
    tunnelId: string,
    name: string,
    def: PinnedDefinition,
    from: { readonly approved: string | null; readonly current: string | null },
  ): Promise<void> {
    const form = def.form ?? PIN_FORM
    const stale =
      (column: 'approved_form' | 'current_form') =>
      (eb: ExpressionBuilder<Database, 'tool_pins'>) =>
        eb.or([eb(column, 'is', null), eb(column, '<', form)])
    const row = this.#db
      .updateTable('tool_pins')
      .where('tunnel_id', '=', tunnelId)
      .where('name', '=', name)
    if (from.approved !== null) {
      await row
        .set({
          approved_hash: def.hash,
          approved_body_hash: def.bodyHash,
          approved_definition: def.definition,
          approved_form: form,
        })
        .where('approved_hash', '=', from.approved)
        .where(stale('approved_form'))
        .execute()
    }
    if (from.current !== null) {
      await row
        .set({
          current_hash: def.hash,
          current_body_hash: def.bodyHash,
          current_definition: def.definition,
          current_form: form,
        })
        .where('current_hash', '=', from.current)
        .where(stale('current_form'))
        .execute()
    }
  }

  /** Forget the definitions kept of the tunnel's tools (their hashes stay). */
  eraseDefinitions(tunnelId: string): Promise<void> {
    return eraseToolDefinitions(this.#db, tunnelId)
  }

  /** Note the server's `list_changed` notification. */
  async listChanged(tunnelId: string, at: Date): Promise<void> {
    await this.#db
      .updateTable('tool_baselines')
      .set({ list_changed_at: at.toISOString() })
      .where('tunnel_id', '=', tunnelId)
      .execute()
  }

  /**
   * Approve the current definition of `name`, reject it, or acknowledge its removal, as the owner
   * saw it (`expect`): store/pin-decisions.ts.
   */
  decide(
    tunnelId: string,
    name: string,
    decision: 'approved' | 'rejected',
    by: string,
    at: Date,
    expect: { hash?: string | null; status?: PinStatus | undefined } = {},
  ): Promise<Decided> {
    return decidePin(this.#db, tunnelId, name, decision, by, at, expect)
  }

  /** How many tools of each of the account's tunnels wait for the owner (`statuses`). */
  async awaiting(accountId: string, statuses: readonly PinStatus[]): Promise<Map<string, number>> {
    const rows = await this.#db
      .selectFrom('tool_pins')
      .innerJoin('tunnels', 'tunnels.id', 'tool_pins.tunnel_id')
      .select(['tool_pins.tunnel_id as tunnelId', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tunnels.account_id', '=', accountId)
      .where('tool_pins.status', 'in', [...statuses])
      // Not a tool the owner forgot (pin-rows.ts `isForgotten`).
      .where((eb) =>
        eb.or([
          eb('tool_pins.status', '!=', 'removed'),
          eb('tool_pins.approved_hash', 'is not', null),
        ]),
      )
      .groupBy('tool_pins.tunnel_id')
      .execute()
    return new Map(rows.map((r) => [r.tunnelId, Number(r.n)]))
  }

  /** The tunnel's approvals and rejections, newest first. */
  async decisions(tunnelId: string, limit = 100) {
    return this.#db
      .selectFrom('tool_approvals')
      .select(['name', 'decision', 'hash', 'decided_at', 'decided_by'])
      .where('tunnel_id', '=', tunnelId)
      .orderBy('decided_at', 'desc')
      .limit(limit)
      .execute()
  }

  async #insertApproved(
    db: Kysely<Database>,
    tunnelId: string,
    tools: readonly (PinnedDefinition & { name: string })[],
    when: string,
    by: string,
  ): Promise<void> {
    for (let i = 0; i < tools.length; i += 100) {
      await db
        .insertInto('tool_pins')
        .values(
          tools.slice(i, i + 100).map((t) => ({
            tunnel_id: tunnelId,
            name: t.name,
            status: 'approved',
            approved_hash: t.hash,
            approved_body_hash: t.bodyHash,
            approved_definition: t.definition,
            current_hash: t.hash,
            current_body_hash: t.bodyHash,
            current_definition: t.definition,
            approved_form: t.form ?? PIN_FORM,
            current_form: t.form ?? PIN_FORM,
            approved_at: when,
            approved_by: by,
          })),
        )
        .onConflict((oc) => oc.columns(['tunnel_id', 'name']).doNothing())
        .execute()
    }
  }
}

/** Forget the definitions kept of a tunnel's tools, in `db` or a transaction of it. */
export async function eraseToolDefinitions(db: Kysely<Database>, tunnelId: string): Promise<void> {
  await db
    .updateTable('tool_pins')
    .set({ approved_definition: null, current_definition: null })
    .where('tunnel_id', '=', tunnelId)
    .where((eb) =>
      eb.or([eb('approved_definition', 'is not', null), eb('current_definition', 'is not', null)]),
    )
    .execute()
}
