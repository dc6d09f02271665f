/**
 * Which tool names rug-pull protection can pin. A name is stored in the pins' rows and copied
 * into every webhook about it, so one of megabytes is not pinned; nor is one that a database
 * cannot store as it is (U+0000, which PostgreSQL refuses in text, or an unpaired surrogate,
 * which UTF-8 cannot carry): stored, it would fail the write of the whole baseline, or read back
 * as another name after a restart. Such tools are held in `hold` mode and pass unchecked in
 * `alert` mode; a call of one is refused saying why, without echoing the name.
 */

/** Longest tool name pinned (MCP asks for 1 to 128 characters). */
export const MAX_PINNED_NAME_CHARS = 1024

/** With the `u` flag a paired surrogate is one code point: `\p{Cs}` matches only lone ones. */
const LONE_SURROGATE = /\p{Cs}/u

/** Why `name` cannot be pinned, for a refusal, or null when it can. */
export function unpinnableName(name: string): string | null {
  if (name.length > MAX_PINNED_NAME_CHARS) {
    return `the tool's name is over ${MAX_PINNED_NAME_CHARS} characters (MCP asks for at most 128)`
  }
  if (name.includes('\u0000') || LONE_SURROGATE.test(name)) {
    return `the tool's name holds characters that cannot be stored (U+0000 or an unpaired surrogate)`
  }
  return null
}
