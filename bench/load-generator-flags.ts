// The load generator is this process. Run it with `--no-memory-reducer`, as burrowd runs: V8's
// memory reducer shrinks a process's heap a few seconds after it goes quiet, and the load
// generator is quiet while a cell's processes start. The next cell then measured the load
// generator's own collections: one 10 MiB stream through Burrow after 30 s of quiet made
// 455–558 MB/s with the flag absent and 700–806 MB/s with it (bench/compare.ts, 2026-11-27).

/** The Node flag this process should run with. */
export const LOAD_GENERATOR_FLAG = '--no-memory-reducer'

/** Say on stderr when this process runs without `LOAD_GENERATOR_FLAG`. */
export function warnWithoutLoadGeneratorFlag(): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  if (given.includes(LOAD_GENERATOR_FLAG)) return
  process.stderr.write(
    `note: the load generator runs without ${LOAD_GENERATOR_FLAG}; cells that follow a pause ` +
      `measure its memory reducer too (start it as: node ${LOAD_GENERATOR_FLAG} --import tsx …)\n`,
  )
}
