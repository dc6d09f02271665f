/**
 * Text of an answer that is not JSON-RPC (an error page, an SSE event of plain text) with its
 * secrets masked, for forwarded redaction: someone still reads it.
 */
import { parseLenientJson } from '@burrow/protocol'
import type { Redactor } from './redactor.js'

/** A JSON string escape of one UTF-16 code unit. */
const ESCAPE = /\\u([0-9a-fA-F]{4})/g

/**
 * `text` (not JSON-RPC) with its secrets masked, or null when it has none. JSON (a string, a
 * number: an object or array is read as messages before this) is read and redacted as a
 * message's values are, so that a secret written with escapes (`\u0041KIA…`) is found, and so is
 * JSON as lenient readers take it (Python's `json` and pydantic read `NaN`: such an event was
 * redacted as text, where keys never applied and escapes hid secrets; found by a hostile review).
 * Text that is neither, or JSON with nothing to mask once read, is redacted as text; text that
 * hides a secret behind escapes is masked whole.
 */
export function redactedText(redactor: Redactor, text: string): string | null {
  // NULs: text in UTF-16 or UTF-32 with no charset named (or a secret broken up by them), read
  // as UTF-8. An agent that drops them reads the secret whole (found by a review): they go, and
  // what is left is redacted and sent.
  if (text.includes('\0')) {
    const read = text.replaceAll('\0', '')
    return redactedText(redactor, read) ?? read
  }
  let value: unknown
  let json = true
  try {
    value = JSON.parse(text)
  } catch {
    value = parseLenientJson(text)
    json = value !== undefined
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
  // What is left, read with its escapes decoded: a secret behind one masks the text whole, also
  // when a plain one beside it was masked (found by a review).
  const decoded = out.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  if (decoded !== out && redactor.redactText(decoded) !== decoded) return '[REDACTED:escaped]'
  return out === text ? null : out
}
