/**
 * A Logger that keeps what it is told, so tests can assert on warnings and re-logged stderr and
 * wait for lines to appear (a child's stderr arrives on its own schedule).
 */
import { createLogger, type Logger } from '../../src/log/logger.js'

/** A logger at trace level that records every line. */
export interface CaptureLogger extends Logger {
  /** Lines so far, as `LEVEL message` without the newline. */
  readonly lines: string[]
  /** Resolves with the first line matching `pattern`, waiting up to `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>
  /** Resolves once `count` lines match `pattern`, waiting up to `timeoutMs`. */
  waitForCount(pattern: RegExp, count: number, timeoutMs?: number): Promise<string[]>
}

/** Create a `CaptureLogger`. */
export function captureLogger(): CaptureLogger {
  const lines: string[] = []
  const waiters = new Set<() => void>()
  const logger = createLogger('trace', (line) => {
    lines.push(line.trimEnd())
    for (const wake of waiters) wake()
  })
  const waitForCount = (pattern: RegExp, count: number, timeoutMs = 5_000): Promise<string[]> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = lines.filter((l) => pattern.test(l))
        if (found.length < count) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve(found)
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        const got = lines.join('\n')
        reject(new Error(`fewer than ${count} log lines matched ${String(pattern)}; got:\n${got}`))
      }, timeoutMs)
      waiters.add(check)
      check()
    })
  const waitFor = async (pattern: RegExp, timeoutMs?: number): Promise<string> =>
    (await waitForCount(pattern, 1, timeoutMs))[0]!
  return { ...logger, lines, waitFor, waitForCount }
}
