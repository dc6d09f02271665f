/**
 * A program and its arguments as one shell-style line, for display and for `UpstreamSpec.command`:
 * plain words stay bare, anything else is single-quoted so the line reads back to the same words.
 */

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/

/** `['npx', '-y', 'my server']` → `npx -y 'my server'`. */
export function formatCommandLine(argv: readonly string[]): string {
  return argv
    .map((word) => (PLAIN.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`))
    .join(' ')
}
