/**
 * Migration `029_tool_pin_keys`: pins and decisions stored under a tool's name as listed are
 * stored under its key instead (governance/pin-key.ts): a name holding a secret the built-in
 * detectors find (`use-ghp_…`) becomes its masked text and a digest, so the secret is no longer
 * kept; every other name stays as it is. Without it, such a tool would be `removed` under its
 * old name and `renamed` under its key on the first listing after the upgrade. Rows are read in
 * pages by key; a key already pinned in the tunnel keeps its row and the old one goes.
 */
import type { Kysely, Migration } from 'kysely'
import { pinKeyOf } from '../../governance/pin-key.js'

/** Rows read at a time. */
const PAGE_ROWS = 5000

/** The tables this migration reads, as it reads them. */
interface KeyedTables {
  tool_pins: {
    tunnel_id: string
    name: string
    renamed_from: string | null
    approved_definition: string | null
    current_definition: string | null
  }
  tool_approvals: { id: string; name: string }
}

export const toolPinKeysMigration: Migration = {
  async up(untyped: Kysely<unknown>): Promise<void> {
    const db = untyped as Kysely<KeyedTables>
    const changes: PinChange[] = []
    let after: { tunnel: string; name: string } | null = null
    for (;;) {
      let page = db
        .selectFrom('tool_pins')
        .select(['tunnel_id', 'name', 'renamed_from'])
        .orderBy('tunnel_id')
        .orderBy('name')
        .limit(PAGE_ROWS)
      if (after !== null) {
        const { tunnel, name } = after
        page = page.where((eb) =>
          eb.or([
            eb('tunnel_id', '>', tunnel),
            eb.and([eb('tunnel_id', '=', tunnel), eb('name', '>', name)]),
          ]),
        )
      }
      const rows = await page.execute()
      // Applied once all are read: a row stored under its key could come round again in a page.
      for (const row of rows) {
        const key = pinKeyOf(row.name)
        const from = row.renamed_from === null ? null : pinKeyOf(row.renamed_from)
        if (key !== row.name || from !== row.renamed_from) changes.push({ ...row, key, from })
      }
      if (rows.length < PAGE_ROWS) break
      const last = rows[rows.length - 1]!
      after = { tunnel: last.tunnel_id, name: last.name }
    }
    for (const change of changes) await rekeyPin(db, change)
    let afterId: string | null = null
    for (;;) {
      let page = db
        .selectFrom('tool_approvals')
        .select(['id', 'name'])
        .orderBy('id')
        .limit(PAGE_ROWS)
      if (afterId !== null) page = page.where('id', '>', afterId)
      const rows = await page.execute()
      for (const row of rows) {
        const key = pinKeyOf(row.name)
        if (key !== row.name) {
          await db
            .updateTable('tool_approvals')
            .set({ name: key })
            .where('id', '=', row.id)
            .execute()
        }
      }
      if (rows.length < PAGE_ROWS) break
      afterId = rows[rows.length - 1]!.id
    }
  },
  async down(): Promise<void> {
    // The names as listed are not kept: nothing to restore.
  },
}

/** A pin to store under its key (and the name it was renamed from under that one's). */
interface PinChange {
  readonly tunnel_id: string
  readonly name: string
  readonly key: string
  readonly from: string | null
}

/** Store the pin of `change` under its key; a key already pinned in the tunnel keeps its row. */
async function rekeyPin(db: Kysely<KeyedTables>, change: PinChange): Promise<void> {
  const { tunnel_id, name, key, from } = change
  const taken =
    key !== name &&
    (await db
      .selectFrom('tool_pins')
      .select('name')
      .where('tunnel_id', '=', tunnel_id)
      .where('name', '=', key)
      .executeTakeFirst()) !== undefined
  if (taken) {
    await db
      .deleteFrom('tool_pins')
      .where('tunnel_id', '=', tunnel_id)
      .where('name', '=', name)
      .execute()
    return
  }
  // A definition kept with the name as listed (the tunnel's redaction off) names the key instead.
  const kept = await db
    .selectFrom('tool_pins')
    .select(['approved_definition', 'current_definition'])
    .where('tunnel_id', '=', tunnel_id)
    .where('name', '=', name)
    .executeTakeFirst()
  const renamed = (definition: string | null | undefined) =>
    definition === null || definition === undefined || key === name
      ? (definition ?? null)
      : definition.split(JSON.stringify(name)).join(JSON.stringify(key))
  await db
    .updateTable('tool_pins')
    .set({
      name: key,
      renamed_from: from,
      approved_definition: renamed(kept?.approved_definition),
      current_definition: renamed(kept?.current_definition),
    })
    .where('tunnel_id', '=', tunnel_id)
    .where('name', '=', name)
    .execute()
}
