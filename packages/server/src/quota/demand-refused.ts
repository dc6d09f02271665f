/**
 * The admission rule of a `UsageDemand`, in one place so both counter implementations (and the
 * Redis script, which mirrors it in Lua) refuse exactly the same requests.
 */

import type { UsageDemand } from './usage-counters.js'

/** True when `demand` must be refused while its counter stands at `before`. */
export function demandRefused(demand: UsageDemand, before: number): boolean {
  switch (demand.check) {
    case 'fits':
      return before + demand.n > demand.limit
    case 'below':
      return before >= demand.limit
    case 'none':
      return false
  }
}
