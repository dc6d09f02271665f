/**
 * The log levels agents set on a server they share (one stdio server, or each upstream of an
 * aggregate). A server keeps one level, for one client; agents each ask for theirs with
 * `logging/setLevel`. So the server is asked for the most verbose level any live session set,
 * and each session hears only the lines at or above its own: one agent asking for `emergency`
 * no longer silences another's `info`, nor does one asking for `debug` flood the others. A
 * session that set no level hears what the server sends, as a client of the server's own would.
 */

/** MCP's levels (RFC 5424's severities), least severe first. */
export const MCP_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const

/** The rank of `level` among MCP's levels, or -1 when it is none of them. */
export function logLevelRank(level: unknown): number {
  return typeof level === 'string' ? (MCP_LOG_LEVELS as readonly string[]).indexOf(level) : -1
}

/** The refusal of a `logging/setLevel` whose level is not one of MCP's, or null. */
export function logLevelRefusal(level: unknown): string | null {
  if (logLevelRank(level) >= 0) return null
  return `logging/setLevel needs a "level" among ${MCP_LOG_LEVELS.join(', ')}`
}

/** Each live session's level, and the one the server is asked for. */
export class LogLevels {
  readonly #bySession = new Map<string, number>()
  /** How many sessions set each level, by rank: the server's level is the lowest counted. */
  readonly #counts = MCP_LOG_LEVELS.map(() => 0)

  /** The level to ask the server for: the most verbose one a live session set, if any. */
  get serverLevel(): string | undefined {
    const rank = this.#counts.findIndex((count) => count > 0)
    return rank < 0 ? undefined : MCP_LOG_LEVELS[rank]
  }

  /** Session `sessionId` asked for `level` (checked with `logLevelRefusal`). */
  set(sessionId: string, level: string): void {
    const rank = logLevelRank(level)
    if (rank < 0) return
    this.#forget(sessionId)
    this.#bySession.set(sessionId, rank)
    this.#counts[rank]! += 1
  }

  /** The session ended. True when the level the server should have changed with it. */
  drop(sessionId: string): boolean {
    const before = this.serverLevel
    this.#forget(sessionId)
    return this.serverLevel !== before && this.serverLevel !== undefined
  }

  /** Every session ended (the server restarted). */
  clear(): void {
    this.#bySession.clear()
    this.#counts.fill(0)
  }

  /** Whether session `sessionId` hears a line at `level` (one of no known level: yes). */
  hears(sessionId: string, level: unknown): boolean {
    const wanted = this.#bySession.get(sessionId)
    if (wanted === undefined) return true
    const rank = logLevelRank(level)
    return rank < 0 || rank >= wanted
  }

  #forget(sessionId: string): void {
    const rank = this.#bySession.get(sessionId)
    if (rank === undefined) return
    this.#bySession.delete(sessionId)
    this.#counts[rank]! -= 1
  }
}
