/**
 * The MCP stdio shutdown sequence, as the SDK's client does it: close the child's stdin (the polite
 * request to exit), wait, send SIGTERM, wait, send SIGKILL.
 */
import type { ChildProcess } from 'node:child_process'

/** What it took to stop the child. */
export type StopOutcome = 'stdin' | 'SIGTERM' | 'SIGKILL'

/**
 * Stop `child`, waiting `graceMs` after each step for `exited` (which the caller resolves on the
 * child's exit). Resolves with the step that worked; after SIGKILL it waits one more grace period
 * at most.
 */
export async function stopChild(
  child: ChildProcess,
  exited: Promise<void>,
  graceMs: number,
): Promise<StopOutcome> {
  child.stdin?.end()
  if (await settlesWithin(exited, graceMs)) return 'stdin'
  child.kill('SIGTERM')
  if (await settlesWithin(exited, graceMs)) return 'SIGTERM'
  child.kill('SIGKILL')
  await settlesWithin(exited, graceMs)
  return 'SIGKILL'
}

/** Resolves true when `promise` settles within `ms`, false otherwise; never leaves a timer. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)))
  try {
    return await Promise.race([promise.then(() => true), timeout])
  } finally {
    clearTimeout(timer)
  }
}
