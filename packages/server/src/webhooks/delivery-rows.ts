/**
 * Small reads of the delivery log the dispatcher makes, and how it names an endpoint in logs.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'

/** The payloads of `rows` (read for the deliveries picked only: payloads can be large). */
export async function payloadsOf(
  db: Kysely<Database>,
  rows: readonly { id: string; endpoint_id: string }[],
): Promise<{ id: string; endpoint_id: string; payload: string }[]> {
  if (rows.length === 0) return []
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'payload'])
    .where((eb) =>
      eb.or(rows.map((r) => eb.and([eb('id', '=', r.id), eb('endpoint_id', '=', r.endpoint_id)]))),
    )
    .execute()
}

/** A URL's origin only: the path of a chat service's webhook URL is its secret. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return '(an invalid URL)'
  }
}
