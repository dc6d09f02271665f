/**
 * Accounts' addresses in their one spelling (`canonicalEmail`): sign-up and sign-in now fold a
 * full-width or decomposed spelling, and an `xn--` domain, into one, so an address stored in
 * another spelling is rewritten to it, or it could no longer sign in. An address whose one
 * spelling another account already has is left as it was (that account owns the mailbox;
 * docs/decisions.md).
 */
import { domainToASCII, domainToUnicode } from 'node:url'
import type { Kysely, Migration } from 'kysely'

interface Accounts {
  accounts: { id: string; email: string }
  account_tokens: { account_id: string; email: string }
}

/**
 * `canonicalEmail` as it was when this migration was written, kept here so that what the
 * migration does never changes with the function.
 */
function canonicalEmail(email: string): string {
  const trimmed = email.trim()
  const at = trimmed.lastIndexOf('@')
  if (at < 0) return trimmed.normalize('NFC').toLowerCase()
  const local = trimmed.slice(0, at).normalize('NFC').toLowerCase()
  const domain = trimmed
    .slice(at + 1)
    .normalize('NFC')
    .toLowerCase()
  const ascii = domainToASCII(domain)
  return `${local}@${ascii === '' ? domain : domainToUnicode(ascii)}`
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
      // Links mailed before name the address as it was; they are for the same mailbox.
      await accounts
        .updateTable('account_tokens')
        .set({ email: canonical })
        .where('account_id', '=', row.id)
        .where('email', '=', row.email)
        .execute()
      taken.add(canonical)
    }
  },
  async down(): Promise<void> {
    // The earlier spellings are not kept; every one of them still signs in to its account.
  },
}
