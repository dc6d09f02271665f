/**
 * `burrow up` runs in a second Node process started with the heap flags it needs.
 *
 * Left to itself, V8 keeps the client's old-generation limit only about 8 MB above what it
 * holds, so a large answer relayed after a pause set off a mark-compact every 25–50 ms (42–126
 * in a 2 s transfer) and cost three times the CPU per MB; with `--initial-old-space-size=64`
 * there were none, and small calls cost a third less (docs/benchmarks.md, "Mark-compact
 * storms"). V8 reads that flag only when it sets up the heap and Node refuses it in
 * `NODE_OPTIONS`, so `up` starts itself again with it: the first process only waits for the
 * second, passes on the signals sent to it, and exits as it did.
 *
 * Signals: the second process runs in a session of its own, so a terminal's Ctrl-C reaches only
 * the first (the terminal's foreground group), which passes it on: one Ctrl-C stays one signal
 * (the drain) and a second stays a second (stop at once). Reading the terminal still works (a
 * terminal that is not a process's controlling one can be read and set to raw mode). The
 * second process's own children (stdio MCP servers) are then out of the terminal's reach too,
 * and stop when `up` stops them. When the first process dies without passing anything on
 * (SIGKILL), the IPC channel between them closes and the second exits at once.
 *
 * Not done where it cannot be or should not be: in the single executable (its argv takes no
 * Node flags), on Windows (no POSIX signals to pass on), under a debugger (`--inspect`: the
 * debugger is attached to this process), or when the process already has the flags.
 * `BURROW_NO_RESPAWN=1` turns it off.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { constants } from 'node:os'
import { isSea } from 'node:sea'

/** The Node flags `burrow up` runs with. */
export const UP_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=64']

/** Set in the second process's environment (and removed from it once read). */
export const RESPAWNED_ENV = 'BURROW_UP_RESPAWNED'

/** The signals `up` acts on, and so the ones passed on. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** Signals the first process dies of when the second did; any other becomes exit 128+n. */
const MIRRORED: ReadonlySet<NodeJS.Signals> = new Set(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'])

/** Whether this process is the second one (read once: the variable is then removed). */
const second = process.env[RESPAWNED_ENV] === '1'
if (second) delete process.env[RESPAWNED_ENV]

/** What decides whether to start again. */
export interface RespawnContext {
  readonly env: NodeJS.ProcessEnv
  readonly execArgv: readonly string[]
  readonly platform: NodeJS.Platform
  /** This is already the second process. */
  readonly second: boolean
  readonly sea: boolean
}

/** This process's context. */
export function currentContext(): RespawnContext {
  return {
    env: process.env,
    execArgv: process.execArgv,
    platform: process.platform,
    second,
    sea: isSea(),
  }
}

/** Whether `up` should start itself again with UP_NODE_FLAGS. */
export function shouldRespawn(context: RespawnContext): boolean {
  if (context.second || context.env.BURROW_NO_RESPAWN === '1') return false
  if (context.sea || context.platform === 'win32') return false
  const debugging = (arg: string) => /^--(inspect|debug)/.test(arg)
  const fromEnv = (context.env.NODE_OPTIONS ?? '').split(/\s+/)
  if (context.execArgv.some(debugging) || fromEnv.some(debugging)) return false
  const given = (flag: string) => {
    const name = flag.split('=', 1)[0]!
    return context.execArgv.some((arg) => arg === name || arg.startsWith(`${name}=`))
  }
  return !UP_NODE_FLAGS.every(given)
}

/** How the second process ended. */
export type ChildEnd = { code: number } | { signal: NodeJS.Signals }

/** The exit status for a second process that ended this way; 128+n for a signal. */
export function exitStatusOf(end: ChildEnd): number {
  return 'code' in end ? end.code : 128 + (constants.signals[end.signal] ?? 0)
}

/** Whether the first process should die of the signal the second died of (else exit 128+n). */
export function mirrorsSignal(signal: NodeJS.Signals): boolean {
  return MIRRORED.has(signal)
}

/**
 * Start this command again with UP_NODE_FLAGS and wait for it; null when it could not be started
 * (then `up` runs here as before).
 */
export async function respawnUp(): Promise<ChildEnd | null> {
  const script = process.argv[1]
  if (!script) return null
  let child: ChildProcess
  try {
    child = spawn(
      process.execPath,
      [...UP_NODE_FLAGS, ...process.execArgv, script, ...process.argv.slice(2)],
      {
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, [RESPAWNED_ENV]: '1' },
        detached: true,
      },
    )
  } catch {
    // For one, a permission model that does not allow child processes.
    return null
  }
  const passOn = SIGNALS.map((s) => {
    const handler = () => void child.kill(s)
    process.on(s, handler)
    return [s, handler] as const
  })
  const stopPassing = () => {
    for (const [s, handler] of passOn) process.off(s, handler)
  }
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true))
    child.once('error', () => resolve(false))
  })
  if (!started) {
    stopPassing()
    return null
  }
  return new Promise<ChildEnd>((resolve) => {
    child.once('exit', (code, signal) => {
      stopPassing()
      resolve(signal ? { signal } : { code: code ?? 1 })
    })
  })
}

/**
 * In the second process: exit when the first is gone (its end closes the IPC channel, which does
 * not keep this process alive). Call it first thing.
 */
export function attachToFirstProcess(): void {
  if (!second || !process.send) return
  process.channel?.unref()
  // Once `up` runs, the first process's end drains like a SIGTERM, so that the stdio servers are
  // stopped as on any other stop (a server that outlives its stdin would be left running).
  const orphaned = () => {
    process.exitCode = 1
    if (process.listenerCount('SIGTERM') > 0) process.emit('SIGTERM', 'SIGTERM')
    else process.exit(1)
  }
  process.once('disconnect', orphaned)
  // The first process may have died before this listener was added.
  if (!process.connected) process.exit(1)
}
