/**
 * The definitions of a tool its owner rejected, remembered by hash (`tool_pins.rejected_hashes`,
 * migration 034) so that a rejected definition the server lists again is rejected again, however
 * it alternated meanwhile (governance/pin-forms.ts). Before, only the status said so: the server
 * listed the approved definition once, which restored the tool to approved, then the rejected one
 * again, merely `changed`, which `alert` mode passes to agents (a hostile review). The newest
 * `MAX_REJECTED_HASHES` are kept; approving a definition forgets its rejection.
 */

/** A rejected definition: its hash, of the field set `form` covers (tool-definition.ts). */
export interface RejectedHash {
  readonly hash: string
  readonly form: number
}

/** Most rejected definitions remembered per tool; past it the oldest is forgotten. */
export const MAX_REJECTED_HASHES = 16

/** The rejected definitions stored as `text` (JSON); none when null or unreadable. */
export function parseRejected(text: string | null): RejectedHash[] {
  if (text === null) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return []
  }
  if (!Array.isArray(parsed)) return []
  return parsed.filter(
    (r: unknown): r is RejectedHash =>
      typeof (r as RejectedHash | null)?.hash === 'string' &&
      typeof (r as RejectedHash).form === 'number',
  )
}

/** `stored` with `rejected` remembered (newest last), as stored again. */
export function withRejected(stored: string | null, rejected: RejectedHash): string {
  const kept = parseRejected(stored).filter((r) => r.hash !== rejected.hash)
  kept.push({ hash: rejected.hash, form: rejected.form })
  return JSON.stringify(kept.slice(-MAX_REJECTED_HASHES))
}

/** `stored` without the rejection of `hash` (the owner approved it), as stored again. */
export function withoutRejected(stored: string | null, hash: string | null): string | null {
  const kept = parseRejected(stored).filter((r) => r.hash !== hash)
  return kept.length === 0 ? null : JSON.stringify(kept)
}
