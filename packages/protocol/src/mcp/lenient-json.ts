/**
 * JSON as lenient readers take it: Python's `json` and pydantic read the bare tokens `NaN`,
 * `Infinity` and `-Infinity` as numbers, where `JSON.parse` refuses the text. A message the edge
 * could not parse may still be read by such an agent, so the edge reads it the same way to see
 * what it holds (each such token becomes null: only its shape matters).
 */

/** `text` parsed with `NaN`, `Infinity` and `-Infinity` outside strings taken as null; or undefined. */
export function parseLenientJson(text: string): unknown {
  if (!/NaN|Infinity/.test(text)) return undefined // nothing more to read than JSON.parse did
  let out = ''
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c /* \ */) i++
      else if (c === 0x22 /* " */) inString = false
      continue
    }
    if (c === 0x22) {
      inString = true
      continue
    }
    const token = text.startsWith('NaN', i)
      ? 3
      : text.startsWith('Infinity', i)
        ? 8
        : text.startsWith('-Infinity', i)
          ? 9
          : 0
    if (token === 0) continue
    out += `${text.slice(from, i)}null`
    i += token - 1
    from = i + 1
  }
  try {
    return JSON.parse(out + text.slice(from)) as unknown
  } catch {
    return undefined
  }
}
