/**
 * Text as one word of a command line the dashboard shows to be pasted into a shell: in single
 * quotes, with each `'` and `\` written outside them as `\'` and `\\`. That reads the same in
 * sh, bash and zsh (where a backslash inside single quotes is itself) and in fish (where `\'`
 * and `\\` inside single quotes are escapes, so a name ending in `\` ended the quotes early
 * when only `'` was escaped, and the rest ran as commands).
 */

/** `text` quoted as one shell word. */
export function shellWord(text: string): string {
  return `'${text.replace(/['\\]/g, (c) => `'\\${c}'`)}'`
}
