/**
 * Multi-row statements that run on the request path (the usage counters' upserts, the call
 * history's inserts), built by Kysely once per kind and row count and then run again with new
 * values. Building a 500-row INSERT makes a node for every value and compiles them to SQL text;
 * the text is the same for every batch of that size, so only the values need to change. The
 * same code runs on SQLite and PostgreSQL: the dialect compiles the template.
 */
import { CompiledQuery, type Compilable, type Kysely, type Transaction } from 'kysely'

/**
 * A compiled statement, and for each of its parameters the index of its value in the rows; null
 * when they are the values in order (a plain INSERT).
 */
interface Template {
  readonly sql: string
  readonly slots: readonly number[] | null
}

/**
 * Templates kept at most, the most recently used: a writer that flushes on a timer meets many
 * row counts, and a template of 500 rows holds thousands of parameter slots.
 */
export const MAX_TEMPLATES = 16

/** What runs statements: the database or a transaction in it. */
type Runner<DB> = Kysely<DB> | Transaction<DB>

/** Builds the statement for some rows; `RowStatements` compiles it, and runs what it compiled. */
export type BuildStatement<DB, Row> = (db: Runner<DB>, rows: readonly Row[]) => Compilable

/** Compiled statements of one table's rows, whose values are listed in `columns` order. */
export class RowStatements<DB, Row extends object> {
  readonly #columns: readonly (keyof Row & string)[]
  /**
   * Templates by `<kind> <rows>`, least recently used first; null where compiling could not
   * place a parameter.
   */
  readonly #templates = new Map<string, Template | null>()

  /** Templates kept now (at most `MAX_TEMPLATES`). */
  get cached(): number {
    return this.#templates.size
  }

  /** `columns`: every column the rows set, the same for every row. */
  constructor(columns: readonly (keyof Row & string)[]) {
    this.#columns = columns
  }

  /**
   * Run the statement `build` makes for `rows`. `kind` names the statement: one template is kept
   * per kind and row count, so one kind must always come with the same `build`. When a template
   * cannot be made, the statement is built and run as usual.
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
    const { sql, slots } = template
    await db.executeQuery(
      CompiledQuery.raw(sql, slots === null ? values : slots.map((slot) => values[slot])),
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
    if (known !== undefined) {
      this.#templates.delete(key)
      this.#templates.set(key, known)
      return known
    }
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
    const inOrder = slots.length === markers.size && slots.every((slot, i) => slot === i)
    const template = slots.includes(-1)
      ? null
      : { sql: compiled.sql, slots: inOrder ? null : slots }
    if (this.#templates.size >= MAX_TEMPLATES) {
      this.#templates.delete(this.#templates.keys().next().value!)
    }
    this.#templates.set(key, template)
    return template
  }
}
