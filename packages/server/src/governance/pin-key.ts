/**
 * The name a tool is pinned under. Pins are stored, shown by the Tools tab and its API, named in
 * held calls' refusals and sent in `tool.changed` webhooks; a server that puts a token in a tool's
 * name (`use-ghp_…`) had it kept and sent as listed, where history masks it (a hostile review).
 * A name the built-in secret detectors find nothing in is pinned as it is. Any other is pinned
 * as its masked text followed by `#` and 32 hex digits of its SHA-256: two names masked alike
 * stay two pins, and the secret is neither stored nor shown. The detectors, not the tunnel's
 * own patterns, decide it, so that a tool keeps its pin when the owner's policy changes or an
 * agent spends the tunnel's budget for patterns.
 *
 * A name already holding a mask is keyed the same way: it cannot pass for another tool's key.
 */
import { createHash } from 'node:crypto'
import { detectSecrets } from './secret-detectors.js'

/** What marks a masked span, as redaction writes it (`[REDACTED:github_token]`). */
const MASK_MARK = '[REDACTED:'

/** Hex digits of the name's SHA-256 a masked key ends with (128 bits: no two names share it). */
const DIGEST_HEX = 32

/** The key `name` is pinned under (`name` itself unless a secret is found in it). */
export function pinKeyOf(name: string): string {
  const spans = detectSecrets(name)
  if (spans.length === 0 && !name.includes(MASK_MARK)) return name
  let masked = ''
  let at = 0
  for (const [start, end, kind] of spans) {
    masked += `${name.slice(at, start)}${MASK_MARK}${kind}]`
    at = end
  }
  masked += name.slice(at)
  const digest = createHash('sha256').update(name).digest('hex').slice(0, DIGEST_HEX)
  return `${masked}#${digest}`
}
