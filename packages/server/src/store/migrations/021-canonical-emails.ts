/**
 * Accounts' addresses in their one spelling (`canonicalEmail`): sign-up and sign-in now fold a
 * full-width or decomposed spelling, and an `xn--` domain, into one, so an address stored in
 * another spelling is rewritten to it, or it could no longer sign in. An address whose one
 * spelling another account already has is left as it was (that account owns the mailbox;
 * docs/decisions.md).
 */
import type { Kysely, Migration } from 'kysely'
import { canonicalEmail } from '../../mail/email-address.js'

interface Accounts {
  accounts: { id: string; email: string }
}

export const canonicalEmailsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const accounts = db as unknown as Kysely<Accounts>
    const rows = await accounts.selectFrom('accounts').select(['id', 'email']).execute()
    const taken = new Set(rows.map((r) => r.email))
    for (const row of rows) {
      const canonical = canonicalEmail(row.email)
      if (canonical === row.email || taken.has(canonical)) continue
      await accounts
        .updateTable('accounts')
        .set({ email: canonical })
        .where('id', '=', row.id)
        .execute()
      taken.add(canonical)
    }
  },
  async down(): Promise<void> {
    // The earlier spellings are not kept; every one of them still signs in to its account.
  },
}
