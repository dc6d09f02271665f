/**
 * A tiny program for crash-reporter tests: installs the crash reporter as `burrow` does, keeps
 * itself alive like a running tunnel, then crashes the way CRASH_MODE says. Configured through
 * the environment: CRASH_SERVICE (the broker URL), CRASH_TELEMETRY (1/0), CRASH_MODE
 * (exception, rejection, fatal), CRASH_HOME (the home directory to scrub), CRASH_TIMEOUT_MS.
 */
import { createLogger } from '../../src/log/logger.js'
import { installCrashReporter } from '../../src/telemetry/crash-reporter.js'

const env = process.env
const home = env.CRASH_HOME ?? '/home/nobody'
const reporter = installCrashReporter({
  enabled: env.CRASH_TELEMETRY === '1',
  serviceUrl: env.CRASH_SERVICE ?? 'ws://127.0.0.1:9',
  clientVersion: '0.1.0',
  command: 'up',
  logger: createLogger('debug'),
  home,
  timeoutMs: Number(env.CRASH_TIMEOUT_MS ?? 2000),
})
// A running tunnel keeps the event loop busy; a crash must end the process anyway.
setInterval(() => {}, 1000)
const error = new Error(`boom for mtk_abcDEF123_-xyz in ${home}/projects/app`)
switch (env.CRASH_MODE) {
  case 'rejection':
    void Promise.reject(error)
    break
  case 'fatal':
    void reporter.report('fatal', error).then(() => {
      process.stdout.write('reported\n')
      process.exit(70)
    })
    break
  default:
    setImmediate(() => {
      throw error
    })
}
