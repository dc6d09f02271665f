/**
 * The handler the tunnel serves, which the inspector's Apply may swap for another layout. Requests
 * go to whatever layout is current; the traffic tap, when the inspector runs, wraps each one.
 */
import type { Logger } from '@burrow/protocol'
import type { AggregatorMetrics } from '../aggregator/aggregator-metrics.js'
import { UsageError } from '../cli-errors.js'
import type { Env } from '../config.js'
import { tapHandler } from '../inspector/traffic-tap.js'
import type { TrafficRecorder } from '../inspector/traffic-recorder.js'
import type { LocalRequest, LocalResponse, RequestHandler } from '../relay/local-exchange.js'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'
import { createHandler } from './create-handler.js'

/** A swappable handler for the current upstream layout. */
export class LayoutHandler implements RequestHandler {
  /** The layout being served. */
  specs: UpstreamSpec[]
  /** How it is described to the user. */
  label: string
  /** The handler without the tap (replays go here, not through the tunnel). */
  inner: RequestHandler
  private active: RequestHandler
  private readonly build: (specs: readonly UpstreamSpec[]) => {
    handler: RequestHandler
    label: string
  }
  private readonly recorder: TrafficRecorder | null
  private readonly log: Logger

  constructor(
    specs: UpstreamSpec[],
    env: Env,
    log: Logger,
    metrics: AggregatorMetrics | undefined,
    recorder: TrafficRecorder | null,
  ) {
    this.build = (next) => createHandler(next, env, log, metrics)
    this.log = log
    this.recorder = recorder
    const { handler, label } = this.build(specs)
    this.specs = specs
    this.label = label
    this.inner = handler
    this.active = recorder ? tapHandler(handler, recorder) : handler
  }

  handle(req: LocalRequest, res: LocalResponse): Promise<void> {
    return this.active.handle(req, res)
  }

  /** The current layout's start (`up` waits for the first one's before going online). */
  started(): Promise<void> {
    return this.inner.started?.() ?? Promise.resolve()
  }

  /** Resolves if the current layout's server can never run. */
  failure(): Promise<Error> {
    return this.inner.failure?.() ?? new Promise<Error>(() => {})
  }

  /**
   * Serve `specs` from now on, once their handler started (or `waitMs` passed: a server still
   * starting is swapped in, as at start); resolves with the handler it replaced (close it when
   * drained). When the new layout's server can never run (a command that does not exist), it is
   * closed and this rejects with a UsageError: the current layout keeps serving.
   */
  async swap(specs: UpstreamSpec[], waitMs = 10_000): Promise<RequestHandler> {
    const { handler, label } = this.build(specs)
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        handler.started?.() ?? Promise.resolve(),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
      ])
    } catch (err) {
      await handler.close().catch(() => {})
      const reason = err instanceof Error ? err.message : String(err)
      throw new UsageError(`the new layout did not start (${reason}); the current one still serves`)
    } finally {
      clearTimeout(timer)
    }
    // A layout applied at run time does not end `up`; a server that fails later is reported.
    void handler.failure?.().then((err) => this.log.warn(err.message))
    const old = this.inner
    this.specs = specs
    this.label = label
    this.inner = handler
    this.active = this.recorder ? tapHandler(handler, this.recorder) : handler
    return old
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
