/**
 * What names an account's current password without revealing it: a digest of its stored hash
 * (salted, so two accounts with one password differ), which changes with every new password.
 * Device cookies are bound to it, and a sign-in's session is made only while it is still the one
 * the password was checked against.
 */
import { createHash } from 'node:crypto'

/** The stamp of stored hash `hash`, or an empty string for no password. */
export function passwordStampOf(hash: string | null | undefined): string {
  return hash ? createHash('sha256').update(hash).digest('base64url') : ''
}
