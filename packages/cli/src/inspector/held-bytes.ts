/**
 * How the inspector counts the memory it holds for its byte budget: 2 bytes per character of
 * every string it keeps (what V8 needs at most for a string's characters), whoever chose the
 * text: bodies, headers, paths, and the method and tool names an agent sent.
 */

/** Bytes counted for `texts`; null and undefined count nothing. */
export function textBytes(...texts: readonly (string | null | undefined)[]): number {
  let chars = 0
  for (const text of texts) chars += text?.length ?? 0
  return chars * 2
}

/** Bytes counted for a header record: each name and value. */
export function headerBytes(headers: Readonly<Record<string, string>>): number {
  let bytes = 0
  for (const [name, value] of Object.entries(headers)) bytes += textBytes(name, value)
  return bytes
}
