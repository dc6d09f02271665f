/**
 * `burrowd migrate`: apply pending database migrations and say what was done. Other commands
 * and `serve` also migrate on open; this lets an operator do it explicitly, e.g. before a deploy.
 */

import type { ServerConfig } from '../config.js'
import { databaseTarget, describeDatabaseTarget } from '../store/database-target.js'
import { DatabaseUnavailableError } from '../store/database-unavailable-error.js'
import { migrateToLatest } from '../store/migrations/migrate-to-latest.js'
import { openStore } from '../store/open-store.js'

/** Migrate the configured database and return the report to print on stdout. */
export async function migrate(config: ServerConfig): Promise<string> {
  const database = describeDatabaseTarget(databaseTarget(config))
  const store = await openStore(config, { migrate: false })
  try {
    const applied = await migrateToLatest(store.db).catch((error: unknown) => {
      throw new DatabaseUnavailableError(database, error)
    })
    return applied.length === 0
      ? `${database} is up to date.\n`
      : `${database}: applied ${applied.join(', ')}.\n`
  } finally {
    await store.close()
  }
}
