/**
 * Which counts call for a `quota.warning`: the increment that crosses 80% of the limit, and the
 * first one counted this month (on this node) at or past it. A counter's crossing is not the only
 * way to pass 80%: a downgrade lowers the limit under the month's count, an operator sets a count
 * (`burrowd usage set`), a tunnel created or swapped in carries on the month of another
 * (`inherit-usage.ts`). Each of those left the month past 80% without any increment crossing it,
 * and the owner heard of the limit first from the `429` (found by a review). The listener keeps
 * a warning once per tunnel, metric and month (`webhooks/quota-warning.ts`), so the first count
 * past 80% on each node, and after each restart, sends nothing twice.
 */
import type { Period } from './period.js'
import type { ConsumeResult, UsageMetric } from './usage-counters.js'
import { WARNING_PERCENT } from './usage-warning.js'

/** Most tunnel-metric pairs remembered; past it the memo starts again (repeats cost a lookup). */
const MAX_REMEMBERED = 100_000

/** Remembers the counters of the month warned of already. */
export class WarningMemo {
  #period: Period | null = null
  readonly #warned = new Set<string>()

  /** True when `result`, a count of `metric` of tunnel `tunnelId`, calls for a warning. */
  due(tunnelId: string, metric: UsageMetric, result: ConsumeResult): boolean {
    if (!result.allowed || result.limit <= 0) return false
    const past = result.value * 100 >= result.limit * WARNING_PERCENT
    if (!result.crossed80 && !past) return false
    // A count late from last month says nothing of this one's (nor keeps this one's memo).
    if (this.#period !== null && result.period < this.#period) return result.crossed80
    if (result.period !== this.#period) {
      this.#period = result.period
      this.#warned.clear()
    }
    const key = `${tunnelId} ${metric}`
    if (this.#warned.has(key)) return false
    if (this.#warned.size >= MAX_REMEMBERED) this.#warned.clear()
    this.#warned.add(key)
    return true
  }
}
