/**
 * Text from configuration files made safe to print on a terminal: control characters (C0, DEL,
 * C1: escape sequences can move the cursor, rewrite what was printed or set the window title) and
 * the Unicode direction marks, zero-width characters and line separators that reorder, hide or
 * break what is shown are written as `\xNN` / `\uNNNN`. A
 * repository's `.mcp.json` is read by `detect`, `up`'s menu and its banner, and must not be able
 * to hide or disguise the command it asks to run. Invisible characters (soft hyphen, fillers,
 * variation selectors, tags) are escaped too: `server.js\u00ad` must not print as `server.js`.
 */

const UNSAFE =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e0fff}]/gu

/** `text` with every unsafe character escaped. */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.codePointAt(0)!
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`
    if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`
    return `\\u{${code.toString(16)}}`
  })
}

/**
 * JSON text with every unsafe character written as a JSON `\uNNNN` escape (a pair of them past
 * U+FFFF): it parses to the same value, and prints nothing a terminal acts on. `JSON.stringify`
 * escapes only U+0000–U+001F (the text's own newlines and indents stay).
 */
export function printableJson(json: string): string {
  return json.replace(UNSAFE, (c) => {
    // C0 is escaped inside strings by JSON.stringify already; outside them it is layout.
    if (c < ' ') return c
    let out = ''
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`
    return out
  })
}
