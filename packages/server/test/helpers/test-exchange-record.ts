/**
 * An `ExchangeRecord` for tests of the edge's relay: a Free tunnel's GET with no body, no history
 * and no sessions, started now; `overrides` changes any of it.
 */
import { ExchangeRecord, type ExchangeContext } from '../../src/edge/exchange-record.js'

/** A record of one exchange of tunnel `tun_1` (account `acc_1`, Free). */
export function testExchangeRecord(overrides: Partial<ExchangeContext> = {}): ExchangeRecord {
  return new ExchangeRecord({
    tunnel: { id: 'tun_1', accountId: 'acc_1', plan: 'free' },
    method: 'GET',
    body: null,
    sessionId: undefined,
    history: null,
    sessions: null,
    arrivedAt: new Date(),
    started: performance.now(),
    ...overrides,
  })
}
