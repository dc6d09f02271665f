#!/usr/bin/env node
/**
 * The `burrow` executable. The one top-level catch lives here: a usage error prints its message
 * and exits 1, an ExitError exits with its status, anything else is a bug ("internal error,
 * please report"), reported to the service unless telemetry is off. Nothing else calls
 * process.exit, except `up`'s second process when the first is gone (up/heap-respawn.ts).
 */
import { ExitError, UsageError } from '../cli-errors.js'
import { parseCli } from '../config.js'
import { DETECT_HELP, MAIN_HELP, UP_HELP } from '../help-text.js'
import {
  attachToFirstProcess,
  currentContext,
  exitStatusOf,
  mirrorsSignal,
  respawnUp,
  shouldRespawn,
} from '../up/heap-respawn.js'
import type { CrashReporter } from '../telemetry/crash-reporter.js'
import { CLI_VERSION } from '../version.js'

const version = () => CLI_VERSION

let reporter: CrashReporter | null = null

async function main(): Promise<number> {
  attachToFirstProcess()
  const cmd = parseCli(process.argv.slice(2), process.env)
  const out = (text: string) => void process.stdout.write(text)
  switch (cmd.command) {
    case 'help':
      out(cmd.topic === 'up' ? UP_HELP : cmd.topic === 'detect' ? DETECT_HELP : MAIN_HELP)
      return 0
    case 'version':
      out(`burrow ${version()}\n`)
      return 0
    case 'up':
    case 'detect': {
      if (cmd.command === 'up' && shouldRespawn(currentContext())) {
        const end = await respawnUp()
        if (end) {
          // Die of the same signal, as the second process did (not of a crash's SIGABRT).
          if ('signal' in end && mirrorsSignal(end.signal)) process.kill(process.pid, end.signal)
          return exitStatusOf(end)
        }
      }
      // Loaded only here, so that a first process that only waits for the second stays small.
      const [{ installCrashReporter }, { createLogger }, { upCommand }, { detectCommand }] =
        await Promise.all([
          import('../telemetry/crash-reporter.js'),
          import('../log/logger.js'),
          import('../up/up-command.js'),
          import('../detect/detect-command.js'),
        ])
      reporter = installCrashReporter({
        enabled: cmd.global.telemetry,
        serviceUrl: cmd.global.broker,
        clientVersion: version(),
        command: cmd.command,
        logger: createLogger(cmd.global.logLevel),
      })
      if (cmd.command === 'up') return upCommand(cmd.global, cmd.up, { out, version: version() })
      return detectCommand(cmd.detect, {
        out,
        warn: (text: string) => void process.stderr.write(text),
      })
    }
  }
}

main().then(
  (status) => {
    process.exitCode = status
  },
  async (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`burrow: ${err.message}\n`)
      process.exit(1)
    }
    if (err instanceof ExitError) {
      process.stderr.write(`burrow: ${err.message}\n`)
      process.exit(err.status)
    }
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err)
    process.stderr.write(`burrow: internal error, please report it:\n${detail}\n`)
    await reporter?.report('fatal', err)
    process.exit(70)
  },
)
