/**
 * `burrow up`: prints the telemetry banner, resolves the upstream layout (flags, file or
 * auto-detect), starts the local handler, the optional inspector and metrics listener and the
 * update check, keeps the tunnel connected, announces the public URL and snippet on each fresh
 * session, and drains on Ctrl-C / SIGTERM. A second signal stops at once.
 */
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { ExitError, EXIT, UsageError } from '../cli-errors.js'
import type { GlobalOptions, UpOptions } from '../config.js'
import { createReplayer } from '../inspector/replay-exchange.js'
import { startInspector, type Inspector } from '../inspector/inspector-server.js'
import { TrafficRecorder } from '../inspector/traffic-recorder.js'
import { writeUpstreamsFile } from '../inspector/upstreams-toml.js'
import { createLogger } from '../log/logger.js'
import { CliMetrics } from '../metrics/cli-metrics.js'
import { startMetrics, type MetricsServer } from '../metrics/metrics-server.js'
import { TunnelClient } from '../tunnel/tunnel-client.js'
import { startUpdateCheck } from '../update/update-check.js'
import { userCacheDir } from '../update/user-cache-dir.js'
import { LayoutHandler } from './layout-handler.js'
import { probeUpstream } from './probe-upstream.js'
import { resolveUpstreams } from './resolve-upstreams.js'
import { announcer } from './announcer.js'
import { telemetryBanner } from './snippet.js'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'
import { CommandNotFoundError } from '../stdio/command-not-found.js'
import { shownUrl } from '../shown-url.js'
import { unencryptedBroker } from './unencrypted-broker.js'

/** Output streams, injectable for tests. */
export interface UpIo {
  readonly out: (text: string) => void
  readonly version: string
}

/** Run `up` until shutdown. Resolves with the exit status; throws UsageError/ExitError. */
export async function upCommand(global: GlobalOptions, up: UpOptions, io: UpIo): Promise<number> {
  io.out(`${telemetryBanner(global.telemetry)}\n`)
  if (up.testCrash)
    setImmediate(() => {
      throw new Error('deliberate crash (BURROW_TEST_CRASH=1)')
    })
  if (!global.apiKey) {
    throw new UsageError(
      'no tunnel key: pass --api-key mtk_… or set BURROW_API_KEY (create one in the dashboard, or with "burrowd tunnel create")',
    )
  }
  const log = createLogger(global.logLevel)
  const unencrypted = unencryptedBroker(global.broker)
  if (unencrypted !== null) {
    log.warn(
      `--broker ${unencrypted} is not encrypted: the tunnel key and every call cross the network ` +
        'as plain text; use wss:// (or https://) for a service that is not on this machine',
    )
  }
  if (global.updateCheck) {
    const stateDir = userCacheDir(up.childEnv, process.platform, homedir())
    startUpdateCheck({
      serviceUrl: global.broker,
      currentVersion: io.version,
      stateDir,
      print: io.out,
      logger: log,
    })
  }
  const specs = await resolveUpstreams(up, log, io.out)
  const metrics = up.metricsAddr !== null ? new CliMetrics() : undefined
  const recorder = up.inspect.enabled ? new TrafficRecorder() : null
  const handler = new LayoutHandler(specs, up.childEnv, log, metrics, recorder)
  let metricsServer: MetricsServer | null = null
  let inspector: Inspector | null = null
  let client: TunnelClient | null = null
  /** Resolved when the tunnel is next connected (after a layout change reconnects it). */
  const onConnected = new Set<() => void>()
  const nextConnected = (timeoutMs: number) =>
    new Promise<void>((resolve) => {
      onConnected.add(resolve)
      setTimeout(resolve, timeoutMs).unref()
    })
  try {
    await checkLocalServers(specs, handler, log)
    if (metrics && up.metricsAddr !== null) {
      metricsServer = await startMetrics(up.metricsAddr, metrics.registry, log)
      if (metricsServer) io.out(`Metrics:        http://${metricsServer.address}/metrics\n`)
    }
    if (recorder) {
      let savedTo = up.upstreamsFile
      inspector = await startInspector({
        ...up.inspect,
        recorder,
        logger: log,
        replay: createReplayer({ recorder, handler: () => handler.inner }),
        ...(up.inspect.admin
          ? {
              layout: {
                get: () => handler.specs,
                apply: async (next) => {
                  const old = await handler.swap([...next])
                  const connected = nextConnected(10_000)
                  client?.reconnect()
                  // Say it only once the new connection serves, so agents never reach the old one.
                  if (client) await connected
                  io.out(`Upstreams changed; now forwarding to: ${handler.label}\n`)
                  setTimeout(() => void old.close(), 5_000).unref()
                },
                save: async (next) => {
                  savedTo ??= resolve('burrow-upstreams.toml')
                  await writeUpstreamsFile(savedTo, next)
                  return savedTo
                },
                get file() {
                  return savedTo
                },
              },
            }
          : {}),
      })
      io.out(`Inspector:      ${inspector.url}\n`)
    }
    client = new TunnelClient({
      broker: global.broker,
      apiKey: global.apiKey,
      name: up.name,
      agent: `burrow/${io.version}`,
      handler,
      log,
      drainGraceMs: up.drainGraceSecs * 1000,
      ...announcer(io.out, () => handler.label, up.name, log),
      onUnreachable: (detail, delayMs) =>
        log.warn(
          `cannot reach the Burrow service at ${global.broker} (${detail}): is burrowd running at that address? Set the address with --broker URL or BURROW_BROKER. Retrying in ${(delayMs / 1000).toFixed(1)}s, then with backoff up to 30s`,
        ),
      onState: (state) => {
        log.debug(`tunnel state: ${state}`)
        if (state !== 'connected') return
        for (const resolve of onConnected) resolve()
        onConnected.clear()
      },
    })
    return await runUntilStopped(client, global.broker, up, io, log, handler)
  } finally {
    await inspector?.close()
    await metricsServer?.close()
    await handler.close()
  }
}

/**
 * Before going online: a stdio server must have started (one whose command does not exist ends
 * `up` with exit status 1, and no URL is announced), and a single HTTP upstream where nothing
 * answers gets a warning.
 */
async function checkLocalServers(
  specs: readonly UpstreamSpec[],
  handler: LayoutHandler,
  log: ReturnType<typeof createLogger>,
): Promise<void> {
  try {
    await handler.started()
  } catch (err) {
    if (err instanceof CommandNotFoundError) throw new UsageError(err.message)
    throw err
  }
  const single = specs.length === 1 ? specs[0]! : null
  if (single?.kind !== 'http') return
  const problem = await probeUpstream(single.url)
  if (problem !== null)
    log.warn(
      `nothing answers at ${shownUrl(new URL(single.url))} (${problem}): start your MCP server there, or check the upstream URL. The tunnel goes online anyway; agents get 502 until the server answers`,
    )
}

async function runUntilStopped(
  client: TunnelClient,
  broker: string,
  up: UpOptions,
  io: UpIo,
  log: ReturnType<typeof createLogger>,
  handler: LayoutHandler,
): Promise<number> {
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
  // The terminal closed: stop as on SIGTERM (the servers `up` started stop with it).
  const onHup = () => {
    // Writing to a terminal that is gone fails (EIO): that must not end `up` before its drain.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})
    onSignal('SIGHUP')
  }
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  process.on('SIGHUP', onHup)
  // A stdio command that turns out not to exist (a shell's 127) ends `up` even once online.
  const failed: { error?: Error } = {}
  void handler.failure().then((error) => {
    failed.error = error
    void client.shutdown(0)
  })
  try {
    const exit = await client.run()
    if (failed.error) throw new UsageError(failed.error.message)
    if (exit.reason === 'auth_failed') {
      throw new ExitError(
        EXIT.authFailed,
        `authentication failed: ${broker} refused the tunnel key (${exit.detail}); check --api-key / BURROW_API_KEY`,
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
    process.off('SIGHUP', onHup)
  }
}
