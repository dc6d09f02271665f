/**
 * `burrow up` runs in a second Node process started with the heap flags it needs.
 *
 * Left to itself, V8 keeps the client's old-generation limit only about 8 MB above what it
 * holds, so a large answer relayed after a pause set off a mark-compact every 25–50 ms (42–126
 * in a 2 s transfer) and cost three times the CPU per MB; with `--initial-old-space-size=64`
 * there were none, and small calls cost a third less (docs/benchmarks.md, "Mark-compact
 * storms"). V8 reads that flag only when it sets up the heap and Node refuses it in
 * `NODE_OPTIONS`, so `up` starts itself again with it: the first process only waits for the
 * second, passes on the signals meant for it, and exits as it did.
 *
 * Signals: a terminal's Ctrl-C reaches both processes (they share the foreground group), while
 * `kill <pid>` or a service manager reaches only the first. The second process tells the first
 * over an IPC channel each time it receives a signal itself; the first passes a signal on only
 * when no such report comes within `SIGNAL_PAIRING_MS`, so one Ctrl-C stays one signal (the
 * drain) and a second stays a second (stop at once). When the first process dies without
 * passing anything on (SIGKILL), the channel closes and the second exits at once too.
 *
 * Not done where it cannot be: in the single executable (its own argv carries no Node flags),
 * on Windows (no POSIX signals to pass on), or when the process already has the flags.
 * `BURROW_NO_RESPAWN=1` turns it off.
 */
import { spawn } from 'node:child_process'
import { isSea } from 'node:sea'

/** The Node flags `burrow up` runs with. */
export const UP_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=64']

/** Set in the second process's environment. */
export const RESPAWNED_ENV = 'BURROW_UP_RESPAWNED'

/** How long the first process waits for the second's report of the same signal. */
export const SIGNAL_PAIRING_MS = 250

/** The signals `up` acts on, and so the ones passed on. */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const
type UpSignal = (typeof SIGNALS)[number]

/** What decides whether to start again. */
export interface RespawnContext {
  readonly env: NodeJS.ProcessEnv
  readonly execArgv: readonly string[]
  readonly platform: NodeJS.Platform
  readonly sea: boolean
}

/** This process's context. */
export function currentContext(): RespawnContext {
  return { env: process.env, execArgv: process.execArgv, platform: process.platform, sea: isSea() }
}

/** Whether `up` should start itself again with UP_NODE_FLAGS. */
export function shouldRespawn(context: RespawnContext): boolean {
  if (context.env[RESPAWNED_ENV] === '1' || context.env.BURROW_NO_RESPAWN === '1') return false
  if (context.sea || context.platform === 'win32') return false
  const given = (flag: string) => {
    const name = flag.split('=', 1)[0]!
    return context.execArgv.some((arg) => arg === name || arg.startsWith(`${name}=`))
  }
  return !UP_NODE_FLAGS.every(given)
}

/** How the second process ended. */
export type ChildEnd = { code: number } | { signal: NodeJS.Signals }

/**
 * Start this command again with UP_NODE_FLAGS and wait for it; null when it could not be started
 * (then `up` runs here as before).
 */
export async function respawnUp(): Promise<ChildEnd | null> {
  const script = process.argv[1]
  if (!script) return null
  const child = spawn(
    process.execPath,
    [...UP_NODE_FLAGS, ...process.execArgv, script, ...process.argv.slice(2)],
    {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, [RESPAWNED_ENV]: '1' },
    },
  )
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true))
    child.once('error', () => resolve(false))
  })
  if (!started) return null

  // Reports of signals the second process received, and signals passed on not yet reported.
  const received = new Map<UpSignal, number[]>(SIGNALS.map((s) => [s, []]))
  const passedOn = new Map<UpSignal, number>(SIGNALS.map((s) => [s, 0]))
  const timers = new Set<NodeJS.Timeout>()
  child.on('message', (message: unknown) => {
    const signal = (message as { signal?: unknown } | null)?.signal
    if (!SIGNALS.includes(signal as UpSignal)) return
    const s = signal as UpSignal
    if (passedOn.get(s)! > 0) passedOn.set(s, passedOn.get(s)! - 1)
    else received.get(s)!.push(Date.now())
  })
  /** Take a report of `s` the second process received by itself, recently; false if none. */
  const takeReport = (s: UpSignal) => {
    const reports = received.get(s)!
    while (reports.length > 0 && Date.now() - reports[0]! > SIGNAL_PAIRING_MS * 4) reports.shift()
    return reports.shift() !== undefined
  }
  const handlers = SIGNALS.map((s) => {
    const handler = () => {
      if (takeReport(s)) return
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (takeReport(s)) return
        passedOn.set(s, passedOn.get(s)! + 1)
        child.kill(s)
      }, SIGNAL_PAIRING_MS)
      timers.add(timer)
    }
    process.on(s, handler)
    return [s, handler] as const
  })

  return new Promise<ChildEnd>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const timer of timers) clearTimeout(timer)
      for (const [s, handler] of handlers) process.off(s, handler)
      resolve(signal ? { signal } : { code: code ?? 1 })
    })
  })
}

/**
 * In the second process: report each signal to the first, and exit when the first is gone. The
 * channel does not keep this process alive. A signal that nothing else here listens for (before
 * `up` set up its own handling, or after it ended it) still ends the process, as it would have
 * without this listener.
 */
export function attachToFirstProcess(): void {
  if (process.env[RESPAWNED_ENV] !== '1' || !process.send) return
  process.channel?.unref()
  process.once('disconnect', () => process.exit(1))
  for (const s of SIGNALS) {
    const report = () => {
      if (process.connected) process.send!({ signal: s })
      if (process.listenerCount(s) > 1) return
      process.off(s, report)
      process.kill(process.pid, s)
    }
    process.on(s, report)
  }
}
