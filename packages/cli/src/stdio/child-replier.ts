/**
 * Writes `burrow up`'s own answers to a stdio child's requests (those in lines it does not
 * forward: over the bound, or nested too deep) on that child's stdin, bounded as
 * `StdioSupervisor.send()` is: while what waits for the child is over the bound, answers are
 * dropped, said once until it reads again. Found by hostile review: a child that wrote such
 * requests without reading its stdin had every answer held, 33 MB after 200 lines of a small
 * batch, without end.
 */
import type { ChildProcess } from 'node:child_process'

/** Where the replier looks before writing. */
export interface ChildReplierHooks {
  /** True while `child` is the running child (a restarted one never sent the request). */
  readonly current: () => boolean
  /** Why nothing more may be written now (the child has not read what waits), or undefined. */
  readonly backlog: () => string | undefined
  readonly warn: (text: string) => void
}

/** The function that answers `child`. */
export function childReplier(child: ChildProcess, hooks: ChildReplierHooks) {
  let dropping = false
  return (answer: unknown): void => {
    if (!hooks.current() || !child.stdin?.writable) return
    const backlog = hooks.backlog()
    if (backlog === undefined) {
      dropping = false
      child.stdin.write(`${JSON.stringify(answer)}\n`)
    } else if (!dropping) {
      dropping = true
      const what =
        'an answer to a request of the stdio server was not delivered to the stdio server'
      hooks.warn(`${what}: ${backlog}; further ones are dropped until it reads`)
    }
  }
}
