/**
 * The budget of metrics reports per account: 30 a minute, then `429 rate_limited` with the wait,
 * other accounts untouched, refilled over time; the JSON API's metrics route spends it before
 * the report is read (the dashboard's Metrics tab spends the same budget).
 */
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { describe, it } from 'node:test'
import { governanceApi } from '../../src/app/api/governance-api.js'
import type { ApiCall } from '../../src/app/api/api-call.js'
import {
  METRICS_REPORTS_PER_MINUTE,
  MetricsReportLimits,
} from '../../src/app/metrics-report-limits.js'
import type { WebServices } from '../../src/app/web-services.js'
import { HttpError } from '../../src/http/http-error.js'

describe('MetricsReportLimits', () => {
  it('refuses an account past its reports a minute with 429 and the wait', () => {
    let now = 0
    const limits = new MetricsReportLimits({ now: () => now })
    for (let i = 0; i < METRICS_REPORTS_PER_MINUTE; i++) limits.spend('acct')
    assert.throws(
      () => limits.spend('acct'),
      (e) =>
        e instanceof HttpError &&
        e.status === 429 &&
        e.code === 'rate_limited' &&
        /asked for 30 metrics reports in the last minute/.test(e.message) &&
        e.details.retry_after_secs === 2,
    )
    limits.spend('other')
    now += 2_000
    limits.spend('acct')
  })

  it('is spent by the API route before the report is read', async () => {
    let read = 0
    const svc = {
      metricsReports: new MetricsReportLimits({ now: () => 0 }),
      governance: {
        metrics: async () => {
          read++
          return { window: '30d', since: '', span: '1d', methods: [], series: [] }
        },
      },
    } as unknown as WebServices
    const api = governanceApi(svc, () => new Date(0))
    const res = { writeHead: () => res, setHeader: () => {}, end: () => {} }
    const call = {
      account: { id: 'acct' },
      res: res as unknown as ServerResponse,
    } as unknown as ApiCall
    const ask = () => api.metrics(call, 't1', new URLSearchParams('window=30d'))
    for (let i = 0; i < METRICS_REPORTS_PER_MINUTE; i++) await ask()
    await assert.rejects(ask(), (e) => e instanceof HttpError && e.status === 429)
    assert.equal(read, METRICS_REPORTS_PER_MINUTE, 'the refused report was not read')
  })
})
