/**
 * The governance routes of the JSON API: a tunnel's policy (`GET`/`PUT
 * /api/tunnels/:id/policy`, with its versions), its calls (`GET /api/tunnels/:id/calls`, one
 * call by id) and its per-method metrics (`GET /api/tunnels/:id/metrics?window=1h|24h|30d`).
 */
import { HttpError } from '../../http/http-error.js'
import { readJsonObject } from '../../http/request-body.js'
import { sendApiError, sendApiJson } from '../../http/responses.js'
import type { CallFilter } from '../../governance/call-log.js'
import { storableText } from '../../store/storable-text.js'
import { METRIC_WINDOWS, type MetricWindow } from '../../governance/metrics-report.js'
import type { WebServices } from '../web-services.js'
import type { ApiCall } from './api-call.js'
import { callJson, metricsJson, policyJson } from './governance-json.js'

/** Who changed a policy, as its version records it. */
export function changedBy(c: ApiCall): string {
  return c.caller.via === 'token'
    ? `API token ${c.caller.tokenId}`
    : `dashboard (${c.account.email})`
}

/** The governance handlers, for a tunnel the caller owns (`tunnelId`). */
export function governanceApi(svc: WebServices, now: () => Date) {
  return {
    async getPolicy(c: ApiCall, tunnelId: string): Promise<void> {
      const view = await svc.governance.policy(tunnelId)
      const versions = await svc.governance.policyVersions(tunnelId)
      sendApiJson(
        c.res,
        200,
        {
          ...policyJson(tunnelId, view),
          versions: versions.map((v) => ({
            version: v.version,
            changed_at: v.changedAt,
            changed_by: v.changedBy,
          })),
        },
        { etag: policyTag(view.version) },
      )
    },

    async putPolicy(c: ApiCall, tunnelId: string): Promise<void> {
      const expected = ifMatchVersion(c.req.headers['if-match'])
      const value = await readJsonObject(c.req)
      const written = await svc.governance.setPolicy(tunnelId, value, changedBy(c), expected)
      if (!written.ok && written.changedSince !== undefined) {
        const now = written.changedSince.version
        const err = new HttpError(412, 'precondition_failed', written.problem.message, {
          version: now,
        })
        return sendApiError(c.res, err, { etag: policyTag(now) })
      }
      if (!written.ok && written.retryAfterSecs !== undefined) {
        const wait = String(written.retryAfterSecs)
        const err = new HttpError(429, 'rate_limited', written.problem.message)
        return sendApiError(c.res, err, { 'retry-after': wait })
      }
      if (!written.ok) {
        throw new HttpError(400, 'invalid', written.problem.message, {
          field: written.problem.field,
        })
      }
      sendApiJson(c.res, 200, policyJson(tunnelId, written.view), {
        etag: policyTag(written.view.version),
      })
    },

    async listCalls(c: ApiCall, tunnelId: string, query: URLSearchParams): Promise<void> {
      const page = await svc.governance.calls(tunnelId, callFilter(query))
      sendApiJson(c.res, 200, { calls: page.calls.map(callJson), next_cursor: page.nextCursor })
    },

    async getCall(c: ApiCall, tunnelId: string, callId: string): Promise<void> {
      const call = await svc.governance.call(tunnelId, callId)
      if (!call) throw new HttpError(404, 'not_found', 'no such call in this tunnel’s history')
      sendApiJson(c.res, 200, callJson(call))
    },

    async metrics(c: ApiCall, tunnelId: string, query: URLSearchParams): Promise<void> {
      const window = query.get('window') ?? '24h'
      if (!Object.hasOwn(METRIC_WINDOWS, window)) {
        throw new HttpError(400, 'invalid', '"window" must be 1h, 24h or 30d', { field: 'window' })
      }
      svc.metricsReports.spend(c.account.id)
      const report = await svc.governance.metrics(tunnelId, window as MetricWindow, now())
      sendApiJson(c.res, 200, metricsJson(report))
    },
  }
}

/** A policy version as an entity tag (`ETag`, `If-Match`). */
function policyTag(version: number): string {
  return `"${version}"`
}

/**
 * The policy version an `If-Match` names (`"3"`; a weak `W/"3"` alike), or undefined when there
 * is none or it is `*` (the policy always exists): a write from a document read at another
 * version would silently undo the changes made since.
 */
export function ifMatchVersion(header: string | string[] | undefined): number | undefined {
  const value = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim()
  if (value === '' || value === '*') return undefined
  const m = /^(?:W\/)?"(0|[1-9]\d{0,14})"$/.exec(value)
  if (!m) {
    throw new HttpError(
      400,
      'invalid',
      '"If-Match" must be one policy version\'s ETag, as GET gave it',
      {
        field: 'if-match',
      },
    )
  }
  return Number(m[1])
}

/** The filters of `GET /api/tunnels/:id/calls`, checked. */
export function callFilter(query: URLSearchParams): CallFilter {
  const filter: { -readonly [K in keyof CallFilter]: CallFilter[K] } = {}
  // As the history stores names (U+0000 as U+FFFD, cut at 200): PostgreSQL refuses U+0000.
  const tool = query.get('tool')
  if (tool) filter.tool = storableText(tool, 200)
  const method = query.get('method')
  if (method) filter.method = storableText(method, 200)
  const status = query.get('status')
  if (status) {
    if (/^[1-5]\d\d$/.test(status)) filter.status = Number(status)
    else if (status === 'ok' || status === 'error' || status === 'refused') filter.status = status
    else
      throw new HttpError(400, 'invalid', '"status" must be an HTTP status, ok, error or refused', {
        field: 'status',
      })
  }
  const since = query.get('since')
  if (since) {
    const at = new Date(since)
    // Times are stored as ISO text and compared as text: one past year 9999 or before year 0
    // (`+275760-…`, `-000001-…`) sorted before every stored time and matched every call.
    const year = at.getUTCFullYear()
    if (Number.isNaN(at.getTime()) || year < 0 || year > 9999) {
      throw new HttpError(400, 'invalid', '"since" must be an ISO-8601 time', { field: 'since' })
    }
    filter.since = at
  }
  const cursor = query.get('cursor')
  if (cursor) {
    if (!/^call_[0-9a-f]{1,40}$/.test(cursor)) {
      throw new HttpError(400, 'invalid', '"cursor" is not one this API gave', { field: 'cursor' })
    }
    filter.cursor = cursor
  }
  const limit = query.get('limit')
  if (limit) {
    const n = /^\d{1,4}$/.test(limit) ? Number(limit) : NaN
    if (!(n >= 1 && n <= 200)) {
      throw new HttpError(400, 'invalid', '"limit" must be from 1 to 200', { field: 'limit' })
    }
    filter.limit = n
  }
  return filter
}
