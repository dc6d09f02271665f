/**
 * What burrowd accepts as an account's email address: one mailbox, `local@domain`, with nothing
 * a mail library could read as a list, a display name or a comment (`,` `;` `<` `>` `(` `)`
 * `"` `:` `[` `]` `\` or spaces). An address that passed only a looser check could be stored as
 * written while its mail went to another mailbox named inside it (`a@x.test<b@y.test>`), so the
 * address an account proved would not be its own. Letters and combining marks of any script are
 * allowed, and `_` inside a domain label (RFC 6531; some hosts' names have it).
 */

const LOCAL = String.raw`[\p{L}\p{M}\p{N}!#$%&'*+/=?^_\x60{|}~-]+(?:\.[\p{L}\p{M}\p{N}!#$%&'*+/=?^_\x60{|}~-]+)*`
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}_-]*[\p{L}\p{M}\p{N}])?`
const ADDRESS = new RegExp(`^${LOCAL}@${LABEL}(?:\\.${LABEL})*$`, 'u')

import { domainToASCII, domainToUnicode } from 'node:url'

/** Longest address accepted (RFC 5321's path limit less the brackets). */
export const MAX_EMAIL_LENGTH = 254

/**
 * What makes a mail library read an address as more than one mailbox, a display name or a
 * comment: the only thing the mailer must never send to (an older account's address may not
 * pass today's stricter rule and still be one mailbox).
 */
const NOT_ONE_MAILBOX = /[\s,;<>()"\\[\]:]/u

/** Whether a stored address can be handed to the mail library as one mailbox. */
export function isOneMailbox(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && !NOT_ONE_MAILBOX.test(email) && email.includes('@')
}

/** Whether `email` is one mailbox burrowd will store and send to. */
export function isEmailAddress(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && ADDRESS.test(email)
}

/**
 * The one spelling of `email` burrowd stores and looks up: trimmed, lowercase, the local part in
 * NFC, the domain through IDNA (UTS #46) and back to Unicode. Two spellings of one mailbox are
 * one account: a full-width `ｅｘａｍｐｌｅ.com`, which the mail library sends to `example.com`,
 * or `é` typed as one code point or as `e` and an accent, or a domain in `xn--` form.
 */
export function canonicalEmail(email: string): string {
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

/**
 * `email` as a lookup key (`canonicalEmail`), or null when no account can have it: text a
 * database cannot compare (U+0000, which PostgreSQL refuses in a query) or far too long.
 */
export function emailLookupKey(email: string): string | null {
  if (email.length > 4 * MAX_EMAIL_LENGTH || email.includes('\u0000')) return null
  return canonicalEmail(email)
}
