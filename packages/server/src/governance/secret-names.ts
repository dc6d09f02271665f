/**
 * Header fields whose names hold a secret. A field's name cannot hold a mask, so forwarded
 * redaction leaves such a field out whole (redactor.ts, `redactFields`): before, `x-ghp_…: 1`
 * reached the agent as sent.
 *
 * Names reach the agent lower-case (`burrow up` reads them so, and the edge writes them so), and
 * a secret of one case (`AKIA…`) survives that for whoever upper-cases it again; the owner's
 * patterns may be written for either case. So the names are read as sent, lower-case and
 * upper-case. In each reading they are scanned joined with a newline (each name on its own
 * line, one scan for all) and with nothing between them, as someone reading the names in order
 * would join a secret split across them; a match that spans names leaves out each. A token's
 * match runs on as far as its characters go, so the field after a name holding a secret may be
 * left out with it. Fields of one name (in any case) are left out together: to a reader they are
 * one field.
 */
import { addJoinedSpans, type Span } from './field-spans.js'

/** Why a field is left out: its name holds a secret, or the patterns could not scan it. */
export type LeftOut = 'secret' | 'unscanned'

/**
 * The fields of `names` to leave out, by index: those whose (lower-case) name `scanned` accepts
 * and in which `spansOf` finds a secret, in any reading; when a scan fails (`spansOf` gives
 * null), every scanned name not already found is left out as `unscanned`.
 */
export function secretNames(
  names: readonly string[],
  scanned: (name: string) => boolean,
  spansOf: (text: string) => Span[] | null,
): Map<number, LeftOut> {
  const out = new Map<number, LeftOut>()
  const at: number[] = []
  for (let i = 0; i < names.length; i++) if (scanned(names[i]!.toLowerCase())) at.push(i)
  if (at.length === 0) return out
  const sent = at.map((i) => names[i]!)
  const found = new Set<string>()
  let unscanned = false
  const read = new Set<string>()
  scan: for (const reading of [
    sent,
    sent.map((n) => n.toLowerCase()),
    sent.map((n) => n.toUpperCase()),
  ]) {
    for (const separator of at.length > 1 ? ['\n', ''] : ['']) {
      const text = reading.join(separator)
      // Names already of one case read the same in that case: scanned once.
      const key = `${separator.length}:${text}`
      if (read.has(key)) continue
      read.add(key)
      const spans = spansOf(text)
      if (spans === null) {
        unscanned = true
        break scan
      }
      if (spans.length === 0) continue
      const into: Span[][] = reading.map(() => [])
      addJoinedSpans(reading, separator, spans, into)
      into.forEach((hits, k) => {
        if (hits.length > 0) found.add(sent[k]!.toLowerCase())
      })
    }
  }
  for (const i of at) {
    if (found.has(names[i]!.toLowerCase())) out.set(i, 'secret')
    else if (unscanned) out.set(i, 'unscanned')
  }
  return out
}
