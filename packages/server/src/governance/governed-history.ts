/**
 * Where the edge's call records go once governance is on: the call history writer, the
 * per-method metrics and the live tail, each bounded and none able to slow the request.
 */
import { newCallId, type CallHistorySink, type CallRecord } from '../quota/call-history.js'
import type { CallMetrics } from './call-metrics.js'
import type { LiveTail } from './live-tail.js'

/** The history sink that feeds every consumer of call records. */
export class GovernedHistory implements CallHistorySink {
  readonly #sinks: readonly { record(r: CallRecord): void }[]
  readonly #tail: LiveTail

  constructor(history: CallHistorySink, metrics: CallMetrics, tail: LiveTail) {
    this.#sinks = [history, metrics]
    this.#tail = tail
  }

  record(r: CallRecord): void {
    const record = r.id === undefined ? { ...r, id: newCallId(r.at) } : r
    for (const sink of this.#sinks) sink.record(record)
    this.#tail.publish(record)
  }
}
