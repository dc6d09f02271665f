/**
 * Text cut to a length for showing: the first `max` characters and `…` when it is longer. A
 * surrogate pair split at the cut is dropped whole, so the result is always valid UTF-16 (a lone
 * surrogate would print as U+FFFD and cannot be encoded as UTF-8).
 */

/** `text` when at most `max` characters long, else its first `max` characters (or one less) and `…`. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max
  return `${text.slice(0, end)}…`
}
