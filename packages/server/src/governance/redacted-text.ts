/**
 * Text of an answer that is not JSON-RPC (an error page, an SSE event of plain text) with its
 * secrets masked, for forwarded redaction: someone still reads it.
 */
import type { Redactor } from './redactor.js'

/**
 * `text` (not JSON-RPC) with its secrets masked, or null when it has none. JSON (a string, a
 * number: an object or array is read as messages before this) is read and redacted as a
 * message's values are, so that a secret written with escapes (`\u0041KIA…`) is found; text
 * that is not JSON, or JSON with nothing to mask once read, is redacted as text.
 */
export function redactedText(redactor: Redactor, text: string): string | null {
  let value: unknown
  let json = true
  try {
    value = JSON.parse(text)
  } catch {
    json = false
  }
  if (json) {
    const before = redactor.masked
    try {
      const out = redactor.redactValue(value)
      if (redactor.masked !== before) return JSON.stringify(out)
    } catch {
      // Nested past what the stack allows: as text below.
    }
  }
  const out = redactor.redactText(text)
  return out === text ? null : out
}
