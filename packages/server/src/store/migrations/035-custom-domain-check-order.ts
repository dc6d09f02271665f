/**
 * Migration `035_custom_domain_check_order`: the order of a custom domain's DNS checks, and a
 * retry for a scheduled check that failed (domains/custom-domains.ts). Each check takes the next
 * number of `checks_begun` as it begins; a result is stored only when no check begun later has
 * stored one (`stored_check`), so a slow scheduled check no longer writes its older DNS answer
 * over the owner's "Check now". A claimed check that failed (a database error, a bug) is due
 * again at `retry_at`, after `failed_checks` such failures in a row.
 */
import type { Kysely, Migration } from 'kysely'

export const customDomainCheckOrderMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const table = () => db.schema.alterTable('custom_domains')
    await table()
      .addColumn('checks_begun', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await table()
      .addColumn('stored_check', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await table().addColumn('retry_at', 'text').execute()
    await table()
      .addColumn('failed_checks', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const column of ['failed_checks', 'retry_at', 'stored_check', 'checks_begun']) {
      await db.schema.alterTable('custom_domains').dropColumn(column).execute()
    }
  },
}
