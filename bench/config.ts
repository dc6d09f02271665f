// The benchmark's knobs, read once from the environment. Every cell runs a bounded warm-up and
// then a fixed measuring window, so the whole run stays bounded (10 to 20 minutes at the
// defaults, the slower the machine the longer, the idle section waiting a minute and a half of
// it; each extra round of `BENCH_ROUNDS` adds about five).
import { resolve } from 'node:path'
import { PEER_IDS, type PeerId } from './peers/peer.js'

/** Settings of one `npm run bench`. */
export interface BenchConfig {
  /** Length of each measured cell (`BENCH_SECONDS`, default 5). */
  readonly seconds: number
  /** Warm-up before each cell, not measured (`BENCH_WARMUP_SECONDS`, default 2). */
  readonly warmupSeconds: number
  /**
   * Calls every call cell's warm-up must also have made (`BENCH_WARMUP_CALLS`, default 10000; 0
   * for none), at most 20 s of them: V8 compiles a fresh process's busy code during its first
   * thousands of calls, and a slow machine makes fewer of them in the same seconds.
   */
  readonly warmupCalls: number
  /** Idle tunnels connected for the memory row (`BENCH_TUNNELS`, default 1000). */
  readonly tunnels: number
  /**
   * Longest idle, counted from the tunnels' connecting, before the memory row's idle reading
   * (`BENCH_IDLE_SECONDS`, default 150); the reading comes sooner once V8 gave back the young
   * generation the burst of connections grew.
   */
  readonly idleSeconds: number
  /**
   * Sections to run (`BENCH_ONLY=small,quota,policy,stdio,sdk,transfer,cluster,idle,peers`;
   * default all). `peers` adds the peer tunnels' rows to the small and transfer sections (and
   * runs both when neither is listed).
   */
  readonly only: ReadonlySet<Section>
  /** Peer tunnels to measure when `peers` runs (`BENCH_PEERS=ssh,pagekite,pipenet`; default all). */
  readonly peers: readonly PeerId[]
  /** Directory for V8 CPU profiles of burrowd and burrow (`BENCH_CPU_PROF`), or null for none. */
  readonly cpuProfileDir: string | null
  /**
   * Times the sections whose rows the targets compare (all but stdio and idle) run, each row then
   * the round with the median value (`BENCH_ROUNDS`, default 1): on a machine whose speed wanders, one cell's
   * reading can land on either side of a threshold.
   */
  readonly rounds: number
}

/** The sections `BENCH_ROUNDS` repeats: those whose rows the targets compare with each other. */
export const REPEATED_SECTIONS: ReadonlySet<Section> = new Set([
  'small',
  'quota',
  'policy',
  'sdk',
  'transfer',
  'cluster',
])

/** Node flags that make a process write a CPU profile on exit, when profiling was asked for. */
export function profileArgs(config: BenchConfig): string[] {
  return config.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${config.cpuProfileDir}`] : []
}

/** The benchmark's sections, in the order they run. */
export const SECTIONS = [
  'small',
  'quota',
  'policy',
  'stdio',
  'sdk',
  'transfer',
  'cluster',
  'idle',
  'peers',
] as const
export type Section = (typeof SECTIONS)[number]

/** Read the settings; throws on a malformed value. */
export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const listed = (env.BENCH_ONLY ?? '').trim()
  const sections = listed === '' ? [...SECTIONS] : listed.split(',').map((s) => s.trim())
  for (const s of sections) {
    if (!(SECTIONS as readonly string[]).includes(s)) {
      throw new Error(`BENCH_ONLY: unknown section "${s}"; sections: ${SECTIONS.join(', ')}`)
    }
  }
  const only = new Set(sections as Section[])
  // The peers' rows live in the small and transfer sections, beside Burrow's.
  if (only.has('peers') && !only.has('small') && !only.has('transfer')) {
    only.add('small')
    only.add('transfer')
  }
  return {
    seconds: positive(env, 'BENCH_SECONDS', 5),
    warmupSeconds: positive(env, 'BENCH_WARMUP_SECONDS', 2),
    warmupCalls: count(env, 'BENCH_WARMUP_CALLS', 10_000),
    tunnels: Math.round(positive(env, 'BENCH_TUNNELS', 1000)),
    idleSeconds: positive(env, 'BENCH_IDLE_SECONDS', 150),
    only,
    peers: peerList(env.BENCH_PEERS),
    cpuProfileDir: env.BENCH_CPU_PROF?.trim() ? resolve(env.BENCH_CPU_PROF.trim()) : null,
    rounds: wholeNumber(env, 'BENCH_ROUNDS', 1),
  }
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = positive(env, name, fallback)
  if (!Number.isInteger(value)) {
    throw new Error(`${name}="${env[name]?.trim()}" must be a whole number (default ${fallback})`)
  }
  return value
}

/** A whole number, zero allowed. */
function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name}="${raw}" must be a whole number, 0 or more (default ${fallback})`)
  }
  return value
}

function peerList(raw: string | undefined): PeerId[] {
  const value = raw?.trim() ?? ''
  if (value === '') return [...PEER_IDS]
  const ids = value.split(',').map((s) => s.trim())
  for (const id of ids) {
    if (!(PEER_IDS as readonly string[]).includes(id)) {
      throw new Error(`BENCH_PEERS: unknown peer "${id}"; peers: ${PEER_IDS.join(', ')}`)
    }
  }
  return [...new Set(ids as PeerId[])]
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new Error(`${name}="${raw}" must be a positive number (default ${fallback})`)
  }
  return value
}
