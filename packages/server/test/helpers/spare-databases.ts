/**
 * PostgreSQL test databases a test process gave back, emptied, for its next test. Creating a
 * database from the migrated template and dropping it cost about half a second a test (a copy of the
 * template's catalogs, and a checkpoint per drop); deleting the rows of a database a test used
 * costs a few milliseconds. Whatever is still connected to a database given back is cut off
 * first, as `drop database … with (force)` does, and the database renamed, so that nothing the
 * test left behind reaches it again. It is taken back only as the template made it (`SHAPE`: its
 * tables, columns, defaults, constraints, indexes, triggers, policies, views, functions, types,
 * schemas and migrations); a test that changed any of them, or whose database cannot be emptied,
 * has it dropped. The spares are dropped when the test file's tests have run (an `after` hook on
 * the file's root).
 */

import { after } from 'node:test'
import pg from 'pg'

/**
 * What a database's definition is, as a digest: a test that changed it gives it back changed.
 * Each part is a list of rows as text (`row(…)::text`, where a null stays in its place).
 */
const SHAPE = `select md5(concat_ws('|',
  (select string_agg(row(relname, relkind, relowner, relrowsecurity, relpersistence)::text, ','
       order by relname)
     from pg_class where relnamespace = 'public'::regnamespace),
  (select string_agg(row(c.relname, a.attname, a.atttypid, a.atttypmod, a.attnotnull, a.atthasdef,
       a.attidentity, a.attgenerated, a.attcollation)::text, ',' order by c.relname, a.attnum)
     from pg_attribute a join pg_class c on c.oid = a.attrelid
     where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped),
  (select string_agg(row(d.adrelid::regclass, d.adnum, pg_get_expr(d.adbin, d.adrelid))::text, ','
       order by d.adrelid::regclass::text, d.adnum)
     from pg_attrdef d join pg_class c on c.oid = d.adrelid
     where c.relnamespace = 'public'::regnamespace),
  (select string_agg(row(conrelid::regclass, contype, pg_get_constraintdef(oid))::text, ','
       order by conrelid::regclass::text, pg_get_constraintdef(oid))
     from pg_constraint where connamespace = 'public'::regnamespace),
  (select string_agg(pg_get_indexdef(indexrelid), ',' order by indexrelid::regclass::text)
     from pg_index i join pg_class c on c.oid = i.indrelid
     where c.relnamespace = 'public'::regnamespace),
  (select string_agg(row(c.relname, pg_get_triggerdef(t.oid), t.tgenabled)::text, ','
       order by c.relname, pg_get_triggerdef(t.oid))
     from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = 'public'::regnamespace and not t.tgisinternal),
  (select string_agg(row(c.relname, p.polname, pg_get_expr(p.polqual, p.polrelid))::text, ','
       order by c.relname, p.polname)
     from pg_policy p join pg_class c on c.oid = p.polrelid),
  (select string_agg(pg_get_viewdef(oid), ',' order by relname)
     from pg_class where relnamespace = 'public'::regnamespace and relkind in ('v', 'm')),
  (select string_agg(row(proname, prosrc)::text, ',' order by proname, prosrc)
     from pg_proc where pronamespace = 'public'::regnamespace),
  (select string_agg(row(t.typname, e.enumlabel)::text, ',' order by t.typname, e.enumsortorder)
     from pg_type t left join pg_enum e on e.enumtypid = t.oid
     where t.typnamespace = 'public'::regnamespace),
  (select string_agg(nspname, ',' order by nspname) from pg_namespace
     where nspname not like 'pg\\_temp\\_%' and nspname not like 'pg\\_toast\\_temp\\_%'),
  (select string_agg(name, ',' order by name) from kysely_migration),
  (select string_agg(row(id, is_locked)::text, ',' order by id) from kysely_migration_lock)
)) as shape`

/** The tables to empty, those that others refer to after those that refer to them. */
const TABLES = `select c.relname as name,
    array(select distinct p.relname from pg_constraint f join pg_class p on p.oid = f.confrelid
          where f.conrelid = c.oid and f.contype = 'f' and f.confrelid <> c.oid) as parents
  from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
    and c.relname not like 'kysely_migration%'`

const everySpares = new Set<SpareDatabases>()
// Registered as this module loads, on the file's root: a hook registered while a test runs would
// be that test's, and run when it ends.
after(async () => {
  for (const spares of everySpares) await spares.dropAll()
})

/** The spare databases of one PostgreSQL server, and the shape its template gives them. */
export class SpareDatabases {
  readonly #url: (name: string) => string
  readonly #rename: (name: string) => Promise<string>
  readonly #drop: (name: string) => Promise<void>
  readonly #spare: string[] = []
  /** What a database copied from the template is: its shape, and the order to empty it in. */
  #fresh: Promise<{ shape: string; order: string[] }> | null = null

  /**
   * `url` names a database of the server; `rename` cuts off whatever is connected to one and
   * gives it a new name, which it returns; `drop` removes one for good.
   */
  constructor(
    url: (name: string) => string,
    rename: (name: string) => Promise<string>,
    drop: (name: string) => Promise<void>,
  ) {
    this.#url = url
    this.#rename = rename
    this.#drop = drop
    everySpares.add(this)
  }

  /** A spare database, or null when there is none. */
  take(): string | null {
    return this.#spare.pop() ?? null
  }

  /**
   * Note the shape of `name`, a database just copied from the template and not yet used: what
   * a database must still have to be taken back. Only the first such note counts; it must be
   * read before the test changes anything.
   */
  async noteFresh(name: string): Promise<void> {
    if (this.#fresh !== null) return
    this.#fresh = this.#withClient(name, async (client) => ({
      shape: await readShape(client),
      order: deletionOrder(await client.query(TABLES)),
    }))
    // A failure shows in `giveBack`, which then drops the databases instead.
    await this.#fresh.catch(() => {})
  }

  /** Empty `name` for another test, or drop it when it is no longer as the template made it. */
  async giveBack(name: string): Promise<void> {
    let current = name
    try {
      if (this.#fresh === null) throw new Error('no fresh database seen')
      const { shape, order } = await this.#fresh
      // Under a new name, a pool or process the test left behind cannot reach it again (nor the
      // next test's rows).
      current = await this.#rename(name)
      const emptied = await this.#withClient(current, async (client) => {
        if ((await readShape(client)) !== shape) return false
        await client.query('begin')
        for (const table of order) await client.query(`delete from "${table}"`)
        await client.query('commit')
        return true
      })
      if (emptied) {
        this.#spare.push(current)
        return
      }
    } catch {
      // Dropped below, as if it had never been given back.
    }
    await this.#drop(current)
  }

  /** Drop the spares (when the test file is done). */
  async dropAll(): Promise<void> {
    const names = this.#spare.splice(0)
    for (const name of names) await this.#drop(name)
  }

  async #withClient<T>(name: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.#url(name) })
    // A backend cut off while the client is idle is reported here, not thrown.
    client.on('error', () => {})
    await client.connect()
    try {
      return await run(client)
    } finally {
      await client.end()
    }
  }
}

async function readShape(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ shape: string }>(SHAPE)
  return rows[0]!.shape
}

/** Children before parents (rows that refer to others go first). */
function deletionOrder(result: pg.QueryResult<{ name: string; parents: string[] }>): string[] {
  const parentsOf = new Map(result.rows.map((row) => [row.name, row.parents]))
  const childrenFirst: string[] = []
  const placed = new Set<string>()
  const visiting = new Set<string>()
  // A table goes after every table that refers to it: visit referrers first.
  const referrers = new Map<string, string[]>()
  for (const [name, parents] of parentsOf) {
    for (const parent of parents) referrers.set(parent, [...(referrers.get(parent) ?? []), name])
  }
  const place = (name: string): void => {
    if (placed.has(name) || visiting.has(name)) return
    visiting.add(name)
    for (const child of referrers.get(name) ?? []) place(child)
    visiting.delete(name)
    placed.add(name)
    childrenFirst.push(name)
  }
  for (const name of [...parentsOf.keys()].sort()) place(name)
  return childrenFirst
}
