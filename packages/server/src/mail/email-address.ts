/**
 * What burrowd accepts as an account's email address: one mailbox, `local@domain`, with nothing
 * a mail library could read as a list, a display name or a comment (`,` `;` `<` `>` `(` `)`
 * `"` `:` `[` `]` `\` or spaces). An address that passed only a looser check could be stored as
 * written while its mail went to another mailbox named inside it (`a@x.test<b@y.test>`), so the
 * address an account proved would not be its own. Letters of any script are allowed (RFC 6531).
 */

const LOCAL = String.raw`[\p{L}\p{N}!#$%&'*+/=?^_\x60{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_\x60{|}~-]+)*`
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?`
const ADDRESS = new RegExp(`^${LOCAL}@${LABEL}(?:\\.${LABEL})*$`, 'u')

/** Longest address accepted (RFC 5321's path limit less the brackets). */
export const MAX_EMAIL_LENGTH = 254

/** Whether `email` is one mailbox burrowd will store and send to. */
export function isEmailAddress(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && ADDRESS.test(email)
}
