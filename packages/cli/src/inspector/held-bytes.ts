/**
 * How the inspector counts the memory it holds for its byte budget: 2 bytes per character of
 * every string it keeps (what V8 needs at most for a string's characters), whoever chose the
 * text: bodies, headers, paths, and the method and tool names an agent sent; and each header
 * field's record beside its text.
 */

/**
 * What keeping one header field costs beyond its name's and value's characters: its entry in the
 * record and its name's string (V8 holds some 50–75 bytes a field, text aside). Counted by text
 * alone, a head of 1,800 short fields, which a local server may send with each answer (16 KiB),
 * was counted a quarter of what it held (found by a hostile review).
 */
export const HEADER_FIELD_COST = 96

/** Bytes counted for `texts`; null and undefined count nothing. */
export function textBytes(...texts: readonly (string | null | undefined)[]): number {
  let chars = 0
  for (const text of texts) chars += text?.length ?? 0
  return chars * 2
}

/** Bytes counted for a header record: each field's record, name and value. */
export function headerBytes(headers: Readonly<Record<string, string>>): number {
  let bytes = 0
  for (const [name, value] of Object.entries(headers))
    bytes += HEADER_FIELD_COST + textBytes(name, value)
  return bytes
}
