/**
 * Multi-row statements that run on the request path (the usage counters' upserts, the call
 * history's inserts), built by Kysely once per kind and row count and then run again with new
 * values. Building a 500-row INSERT makes a node for every value and compiles them to SQL text;
 * the text is the same for every batch of that size, so only the values need to change. The
 * same code runs on SQLite and PostgreSQL: the dialect compiles the template.
 */
import { CompiledQuery, type Compilable, type Kysely, type Transaction } from 'kysely'

/** A compiled statement, and for each of its parameters the index of its value in the rows. */
interface Template {
  readonly sql: string
  readonly slots: readonly number[]
}

/** What runs statements: the database or a transaction in it. */
type Runner<DB> = Kysely<DB> | Transaction<DB>

/** Builds the statement for some rows (never run by `RowStatements` itself, only compiled). */
export type BuildStatement<DB, Row> = (db: Runner<DB>, rows: readonly Row[]) => Compilable

/** Compiled statements of one table's rows, whose values are listed in `columns` order. */
export class RowStatements<DB, Row extends object> {
  readonly #columns: readonly (keyof Row & string)[]
  /** Templates by `<kind> <rows>`; null where compiling could not place a parameter. */
  readonly #templates = new Map<string, Template | null>()

  /** `columns`: every column the rows set, the same for every row. */
  constructor(columns: readonly (keyof Row & string)[]) {
    this.#columns = columns
  }

  /**
   * Run the statement `build` makes for `rows` (of kind `kind`: one template per kind and row
   * count). When a template cannot be made, the statement is built and run as usual.
   */
  async run(
    db: Runner<DB>,
    kind: string,
    rows: readonly Row[],
    build: BuildStatement<DB, Row>,
  ): Promise<void> {
    if (rows.length === 0) return
    const template = this.#template(db, kind, rows.length, build)
    if (template === null) {
      await db.executeQuery(build(db, rows).compile())
      return
    }
    const values: unknown[] = []
    for (const row of rows) for (const column of this.#columns) values.push(row[column])
    await db.executeQuery(
      CompiledQuery.raw(
        template.sql,
        template.slots.map((slot) => values[slot]),
      ),
    )
  }

  /**
   * The template for `count` rows: compiled with a unique marker for every value, whose place
   * among the parameters tells where each value goes. Null if any parameter is not one of the
   * markers (a value the query builder would have inlined or transformed).
   */
  #template(
    db: Runner<DB>,
    kind: string,
    count: number,
    build: BuildStatement<DB, Row>,
  ): Template | null {
    const key = `${kind} ${count}`
    const known = this.#templates.get(key)
    if (known !== undefined) return known
    const markers = new Map<string, number>()
    const rows = Array.from({ length: count }, () => {
      const row: Record<string, string> = {}
      for (const column of this.#columns) {
        const marker = `\u0000${markers.size}`
        markers.set(marker, markers.size)
        row[column] = marker
      }
      return row as unknown as Row
    })
    const compiled = build(db, rows).compile()
    const slots = compiled.parameters.map((p) => markers.get(p as string) ?? -1)
    const template = slots.includes(-1) ? null : { sql: compiled.sql, slots }
    this.#templates.set(key, template)
    return template
  }
}
