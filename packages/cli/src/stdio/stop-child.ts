/**
 * The MCP stdio shutdown sequence, as the SDK's client does it: close the child's stdin (the polite
 * request to exit), wait, send SIGTERM, wait, send SIGKILL. On POSIX the child leads a process
 * group of its own (`detached`, see stdio-supervisor.ts), and the signals go to the whole group:
 * a server started through a wrapper (`sh -c`, a launcher script) is the wrapper's child, and
 * signalling the wrapper alone left it running, holding the pipes, so `burrow up` never exited
 * (found by a hostile review). What is left of the group once the child has gone gets SIGTERM,
 * then SIGKILL.
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
  const outcome = await stopLeader(child, exited, graceMs)
  await stopGroup(child, graceMs)
  return outcome
}

/** Stop what is left of the process group of `child`, which has exited: SIGTERM, then SIGKILL. */
export async function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
  if (!groupAlive(child)) return
  signal(child, 'SIGTERM')
  await until(() => !groupAlive(child), graceMs)
  if (groupAlive(child)) signal(child, 'SIGKILL')
}

async function stopLeader(
  child: ChildProcess,
  exited: Promise<void>,
  graceMs: number,
): Promise<StopOutcome> {
  child.stdin?.end()
  if (await settlesWithin(exited, graceMs)) return 'stdin'
  signal(child, 'SIGTERM')
  if (await settlesWithin(exited, graceMs)) return 'SIGTERM'
  signal(child, 'SIGKILL')
  await settlesWithin(exited, graceMs)
  return 'SIGKILL'
}

/**
 * Whether `child` may lead a process group (POSIX). One spawned without a group of its own has
 * none of its id (a living process's id is no other group's), so signalling it fails with
 * ESRCH and the child alone is signalled.
 */
function leadsGroup(child: ChildProcess): boolean {
  return process.platform !== 'win32' && child.pid !== undefined
}

/** Send `sig` to the child's process group, or to the child alone where it leads none. */
function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (leadsGroup(child)) {
    try {
      process.kill(-child.pid!, sig)
      return
    } catch {
      // No such group (spawned without one, or every member gone): the child alone.
    }
  }
  child.kill(sig)
}

/** Whether any process of the child's group is still running. */
function groupAlive(child: ChildProcess): boolean {
  if (!leadsGroup(child)) return false
  try {
    process.kill(-child.pid!, 0)
    return true
  } catch {
    return false
  }
}

/** Resolves once `check` holds, polling every 50 ms, or after `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
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
