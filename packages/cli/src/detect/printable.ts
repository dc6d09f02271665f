/**
 * Text from configuration files made safe to print on a terminal: control characters (C0, DEL,
 * C1: escape sequences can move the cursor, rewrite what was printed or set the window title) and
 * the Unicode direction marks, zero-width characters and line separators that reorder, hide or
 * break what is shown are written as `\xNN` / `\uNNNN`. A
 * repository's `.mcp.json` is read by `detect` and `up`'s menu, and must not be able to hide or
 * disguise the command it asks to run.
 */

const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g

/** `text` with every unsafe character escaped. */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0)
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
