/**
 * Monthly quota enforcement for the edge (docs/decisions.md#quotas-and-sessions): per tunnel and
 * calendar month (UTC), limits from the tunnel's plan. A request is admitted or refused whole: its
 * `tools/call` messages must fit the tool-call limit exactly, and the bandwidth counter must still
 * be below its limit (the request's body then counts in full). Response bytes are counted as they
 * stream, in batches per tunnel (`response-batches.ts`); a response passing the limit goes on until the month is `RESPONSE_OVERAGE_BYTES` past it,
 * when every response of the tunnel still streaming is cut. Crossing 80% of a limit raises a
 * `QuotaWarning`, and so does the first count of the month past it (`warning-memo.ts`).
 */
import type { Logger } from '@burrow/protocol'
import { PLANS, type PlanId } from '../plans.js'
import { periodOf } from './period.js'
import { quotaRefusal, type QuotaRefusal } from './quota-refusal.js'
import type { QuotaWarningListener } from './quota-warning.js'
import type { ConsumeResult, UsageCounters, UsageDemand, UsageMetric } from './usage-counters.js'
import { OwedResponseBytes } from './owed-response-bytes.js'
import { ResponseBatches } from './response-batches.js'
import { WarningOffers } from './warning-offers.js'
import { WarningMemo } from './warning-memo.js'

export { OWED_RETRY_MS } from './owed-response-bytes.js'
export { RESPONSE_BATCH_BYTES, RESPONSE_WAIT_MS } from './response-batches.js'

/** What the gate needs to know of a tunnel (the edge's cached `TunnelWithAccount`). */
export interface MeteredTunnel {
  readonly id: string
  readonly accountId: string
  readonly plan: PlanId
}

/** Options of `QuotaGate`. */
export interface QuotaGateOptions {
  readonly counters: UsageCounters
  readonly log: Logger
  /** Told when a counter crosses 80% of its limit, or is first counted past it. Default: nothing. */
  readonly onQuotaWarning?: QuotaWarningListener
  /** The time requests are counted at (tests pass their own). */
  readonly clock?: () => Date
}

/**
 * How far past its bandwidth limit a tunnel's month may go by responses admitted below it (the
 * largest JSON answer the edge reads whole): a response that straddles the limit completes, one
 * that never ends (an SSE stream, a GET stream) does not carry the month on without bound.
 */
export const RESPONSE_OVERAGE_BYTES = 16 * 1024 * 1024

/** Counts and limits requests for the edge. */
export class QuotaGate {
  readonly #counters: UsageCounters
  readonly #log: Logger
  /** Hands warnings to the listener, again while it fails. */
  readonly #warnings: WarningOffers
  readonly #warned = new WarningMemo()
  readonly #clock: () => Date
  /** Response bytes being counted in the background. */
  readonly #pending = new Set<Promise<void>>()
  /**
   * Response bytes of this event-loop turn not yet sent to the counters, by tunnel: the answers
   * that end in one turn are counted with one increment per tunnel, not one each.
   */
  readonly #turnBytes = new Map<string, { readonly tunnel: MeteredTunnel; n: number }>()
  #turnFlush: NodeJS.Immediate | null = null
  /** Response bytes the counters failed to take (Redis restarting), offered again. */
  readonly #owed: OwedResponseBytes<MeteredTunnel>
  /**
   * How to cut each response of a tunnel still streaming, with the bandwidth limit it is cut by
   * (the plan's it was admitted under, or a lower plan's the account moved to since), by tunnel.
   */
  readonly #streaming = new Map<string, Streaming>()
  /** Response bytes not yet counted, per tunnel: at most a batch, for at most a second. */
  readonly #batches = new ResponseBatches<MeteredTunnel>((tunnel, n) =>
    this.#countResponse(tunnel, n),
  )

  constructor(options: QuotaGateOptions) {
    this.#counters = options.counters
    this.#log = options.log
    this.#clock = options.clock ?? (() => new Date())
    this.#warnings = new WarningOffers(options.onQuotaWarning ?? (() => {}), this.#log, this.#clock)
    this.#owed = new OwedResponseBytes(this.#log, (tunnel, n, at) =>
      this.#addResponseBytes(tunnel, n, at),
    )
  }

  /**
   * Count a request of `tunnel` with `toolCalls` tool calls and a body of `requestBytes`, or
   * refuse it without counting anything. Rejects when the counters cannot decide at all.
   */
  async admit(
    tunnel: MeteredTunnel,
    toolCalls: number,
    requestBytes: number,
  ): Promise<QuotaAdmission> {
    const now = this.#clock()
    const plan = PLANS[tunnel.plan]
    const demands: UsageDemand[] = [
      {
        metric: 'bandwidth_bytes',
        n: requestBytes,
        limit: plan.bandwidthBytesPerMonth,
        check: 'below',
      },
    ]
    if (toolCalls > 0) {
      demands.push({
        metric: 'tool_calls',
        n: toolCalls,
        limit: plan.toolCallsPerMonth,
        check: 'fits',
      })
    }
    const outcome = await this.#counters.consumeAll(tunnel.id, demands, now)
    if (outcome.allowed) {
      outcome.results.forEach((result, i) =>
        this.#warnIfCrossed(tunnel, demands[i]!.metric, result),
      )
      return { refusal: null }
    }
    const refused = demands.findIndex((d) => d.metric === outcome.refusedBy)
    const result = outcome.results[refused] ?? outcome.results[0]!
    const metric = demands[refused]?.metric ?? 'bandwidth_bytes'
    return { refusal: quotaRefusal(metric, plan, result.value, result.resetsAt, now) }
  }

  /**
   * A meter for the body of one response of `tunnel`: `add` bytes as they stream, `finish` at
   * the end. Counting happens off the response's path; `cut` is called (once) when the tunnel's
   * month has gone `RESPONSE_OVERAGE_BYTES` past its bandwidth limit while the response streams.
   */
  responseMeter(tunnel: MeteredTunnel, cut?: () => void): ResponseMeter {
    let finished = false
    const limit = PLANS[tunnel.plan].bandwidthBytesPerMonth
    const release = cut === undefined ? () => {} : this.#whileStreaming(tunnel, cut, limit)
    return {
      add: (n) => {
        if (!finished) this.#batches.add(tunnel, n)
      },
      finish: () => {
        if (finished) return
        finished = true
        release()
        this.#batches.sendOf(tunnel)
      },
    }
  }

  /** Whether a response of one of `accountId`'s tunnels is streaming (`planChanged` matters). */
  streamsOf(accountId: string): boolean {
    for (const streaming of this.#streaming.values()) {
      if (streaming.accountId === accountId) return true
    }
    return false
  }

  /**
   * Account `accountId` is on `plan` now: its responses still streaming are cut by `plan`'s
   * bandwidth limit where it is lower than the one they were admitted under (a downgrade), at
   * once when the month is already the overage past it. Before, a stream admitted under a paid
   * plan was cut only by that plan's limit, whatever the account's plan became, in this month
   * and every one after for as long as it stayed open.
   */
  async planChanged(accountId: string, plan: PlanId): Promise<void> {
    const limit = PLANS[plan].bandwidthBytesPerMonth
    const lowered: string[] = []
    for (const [tunnelId, streaming] of this.#streaming) {
      if (streaming.accountId !== accountId) continue
      // The plan now, not the lowest told since: Scale, Free, then Pro cuts at Pro's limit.
      streaming.current = limit
      for (const admitted of streaming.cuts.values()) {
        if (limit >= admitted) continue
        lowered.push(tunnelId)
        break
      }
    }
    const now = this.#clock()
    for (const tunnelId of lowered) {
      try {
        this.#cutStreaming(tunnelId, await this.#counters.get(tunnelId, 'bandwidth_bytes', now))
      } catch (error) {
        // The next batch of its bytes checks again.
        this.#log.warn(
          `quota: reading ${tunnelId}'s month after its plan changed failed: ${(error as Error).message}`,
        )
      }
    }
  }

  /** Keep `cut` among `tunnel`'s responses streaming; the function returned takes it out. */
  #whileStreaming(tunnel: MeteredTunnel, cut: () => void, limit: number): () => void {
    let streaming = this.#streaming.get(tunnel.id)
    if (streaming === undefined) {
      streaming = {
        accountId: tunnel.accountId,
        cuts: new Map<() => void, number>(),
        current: Infinity,
      }
      this.#streaming.set(tunnel.id, streaming)
    }
    const { cuts } = streaming
    cuts.set(cut, limit)
    return () => {
      cuts.delete(cut)
      if (cuts.size === 0 && this.#streaming.get(tunnel.id) === streaming)
        this.#streaming.delete(tunnel.id)
    }
  }

  /**
   * Cut the responses of `tunnelId` still streaming whose limit its month's `value` has passed
   * by the overage: one admitted under a smaller plan before an upgrade is cut by its own limit,
   * not every response admitted since; each by the lower of its own and the account's plan now.
   * Run on every count of the tunnel's bytes, so it makes nothing while none is due.
   */
  #cutStreaming(tunnelId: string, value: number): void {
    const streaming = this.#streaming.get(tunnelId)
    if (streaming === undefined) return
    const { cuts, current } = streaming
    let due: (() => void)[] | null = null
    for (const [cut, admitted] of cuts) {
      if (value < Math.min(admitted, current) + RESPONSE_OVERAGE_BYTES) continue
      ;(due ??= []).push(cut)
    }
    if (due === null) return
    for (const cut of due) {
      cuts.delete(cut)
      try {
        cut()
      } catch (error) {
        this.#log.error(
          `quota: cutting a response of ${tunnelId} failed: ${(error as Error).message}`,
        )
      }
    }
    if (cuts.size === 0 && this.#streaming.get(tunnelId) === streaming)
      this.#streaming.delete(tunnelId)
  }

  /**
   * Wait until the response bytes counted so far, those still gathering into a batch included,
   * are in the counters (shutdown, tests).
   */
  async drain(): Promise<void> {
    this.#batches.sendAll()
    this.#flushTurnBytes()
    while (this.#pending.size > 0) await Promise.all([...this.#pending])
  }

  /** Stop offering refused bytes again; what is still owed is logged as lost. */
  close(): void {
    this.#warnings.close()
    const lost = this.#owed.close() + this.#batches.discard()
    if (lost > 0)
      this.#log.error(`quota: ${lost} response bytes not counted (counters unavailable)`)
  }

  /** Add `n` response bytes of `tunnel` to this turn's; they reach the counters after the turn. */
  #countResponse(tunnel: MeteredTunnel, n: number): void {
    const known = this.#turnBytes.get(tunnel.id)
    if (known !== undefined) known.n += n
    else this.#turnBytes.set(tunnel.id, { tunnel, n })
    this.#turnFlush ??= setImmediate(() => this.#flushTurnBytes())
  }

  #flushTurnBytes(): void {
    if (this.#turnFlush !== null) clearImmediate(this.#turnFlush)
    this.#turnFlush = null
    for (const { tunnel, n } of this.#turnBytes.values()) this.#addResponseBytes(tunnel, n)
    this.#turnBytes.clear()
  }

  #addResponseBytes(tunnel: MeteredTunnel, n: number, at = this.#clock()): void {
    const limit = PLANS[tunnel.plan].bandwidthBytesPerMonth
    const counting = this.#counters
      .add(tunnel.id, 'bandwidth_bytes', n, limit, at)
      .then(
        (result) => {
          this.#warnIfCrossed(tunnel, 'bandwidth_bytes', result)
          // Bytes owed from an earlier month, counted late, say nothing of this month's. Each
          // response is checked against its own limit, which a downgrade may have lowered.
          if (periodOf(at) === periodOf(this.#clock())) this.#cutStreaming(tunnel.id, result.value)
        },
        (error: Error) => this.#owed.owe(tunnel, n, at, error),
      )
      .finally(() => this.#pending.delete(counting))
    this.#pending.add(counting)
  }

  /** Response bytes waiting for the counters to work again (tests, shutdown). */
  get owedBytes(): number {
    return this.#owed.bytes
  }

  #warnIfCrossed(tunnel: MeteredTunnel, metric: UsageMetric, result: ConsumeResult): void {
    if (!this.#warned.due(tunnel.id, metric, result)) return
    const warning = {
      accountId: tunnel.accountId,
      tunnelId: tunnel.id,
      metric,
      limit: result.limit,
      used: result.value,
      period: result.period,
      resetsAt: result.resetsAt,
    }
    this.#log.info(
      `quota.warning: tunnel ${tunnel.id} used ${warning.used} of ${warning.limit} ${metric} in ${warning.period} (sent unless sent already this month)`,
    )
    this.#warnings.offer(warning)
  }
}

/** A tunnel's responses still streaming: how to cut each, and the limits they are cut by. */
interface Streaming {
  readonly accountId: string
  /** How to cut each response, with the bandwidth limit of the plan it was admitted under. */
  readonly cuts: Map<() => void, number>
  /** The limit of the plan the account is on now, once told of a change (`planChanged`). */
  current: number
}

/** What `QuotaGate.admit` decided about a request. */
export interface QuotaAdmission {
  /** Why the request is refused, or null when it may go on. */
  readonly refusal: QuotaRefusal | null
}

/** Counts one response's bytes (see `QuotaGate.responseMeter`). */
export interface ResponseMeter {
  add(n: number): void
  finish(): void
}
