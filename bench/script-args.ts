// The positional numbers of the bench's small comparison scripts (bench/floors.ts,
// bench/front-proxy.ts): concurrency, rounds and seconds per cell, each a whole number above 0.

/** `[concurrency, rounds, seconds]` from argv, each defaulting to `defaults`; exits on bad input. */
export function cellArgs(
  script: string,
  defaults: readonly [number, number, number],
): [number, number, number] {
  return defaults.map((fallback, i) => {
    const text = process.argv[2 + i]
    const n = text === undefined ? fallback : Number(text)
    if (!Number.isInteger(n) || n <= 0) {
      process.stderr.write(
        `usage: node --import tsx ${script} [<concurrency> [<rounds> [<seconds>]]]\n`,
      )
      process.exit(2)
    }
    return n
  }) as [number, number, number]
}
