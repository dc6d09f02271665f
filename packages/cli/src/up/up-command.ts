/**
 * `burrow up`: prints the telemetry banner, starts the local handler for the upstream, keeps the
 * tunnel connected, announces the public URL and snippet on each fresh session, and drains on
 * Ctrl-C / SIGTERM. A second signal stops at once.
 */
import type { Welcome } from '@burrow/protocol'
import { ExitError, EXIT, UsageError } from '../cli-errors.js'
import type { GlobalOptions, UpOptions } from '../config.js'
import { createLogger } from '../log/logger.js'
import { TunnelClient } from '../tunnel/tunnel-client.js'
import { createHandler } from './create-handler.js'
import { announcement, telemetryBanner } from './snippet.js'

/** Output streams, injectable for tests. */
export interface UpIo {
  readonly out: (text: string) => void
  readonly version: string
}

/** Run `up` until shutdown. Resolves with the exit status; throws UsageError/ExitError. */
export async function upCommand(global: GlobalOptions, up: UpOptions, io: UpIo): Promise<number> {
  io.out(`${telemetryBanner(global.telemetry)}\n`)
  if (!global.apiKey) {
    throw new UsageError(
      'no tunnel key: pass --api-key mtk_… or set BURROW_API_KEY (create one in the dashboard, or with "burrowd tunnel create")',
    )
  }
  const log = createLogger(global.logLevel)
  const spec = up.upstreams[0]
  if (!spec) throw new UsageError('no upstream given')
  const { handler, label } = createHandler(spec, up.childEnv, log)
  let announced = false
  const client = new TunnelClient({
    broker: global.broker,
    apiKey: global.apiKey,
    name: up.name,
    agent: `burrow/${io.version}`,
    handler,
    log,
    onWelcome: (welcome: Welcome) => {
      if (announced && welcome.resumed) {
        log.info('reconnected; the session continues')
        return
      }
      announced = true
      io.out(announcement(welcome.publicUrl, label, up.name))
    },
    onState: (state) => log.debug(`tunnel state: ${state}`),
  })

  let signals = 0
  const onSignal = (signal: string) => {
    signals++
    if (signals > 1) {
      log.warn(`${signal} again: stopping now`)
      process.exitCode = 130
      void handler.close().finally(() => process.kill(process.pid, 'SIGKILL'))
      return
    }
    io.out(
      `\n${signal} received: goodbye. Finishing in-flight requests (up to ${up.drainGraceSecs}s)…\n`,
    )
    void client.shutdown(up.drainGraceSecs * 1000)
  }
  const onInt = () => onSignal('SIGINT')
  const onTerm = () => onSignal('SIGTERM')
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  try {
    const exit = await client.run()
    if (exit.reason === 'auth_failed') {
      throw new ExitError(
        EXIT.authFailed,
        `authentication failed: ${exit.detail}; check --api-key / BURROW_API_KEY`,
      )
    }
    if (exit.reason === 'replaced') {
      throw new ExitError(
        EXIT.replaced,
        'another "burrow up" with the same key took over this tunnel; exiting',
      )
    }
    io.out('Tunnel closed.\n')
    return EXIT.ok
  } finally {
    process.off('SIGINT', onInt)
    process.off('SIGTERM', onTerm)
    await handler.close()
  }
}
