/**
 * The admin endpoint `burrowd usage set` calls on a running single-node burrowd, whose live
 * counters are in its memory: `POST /internal/usage` with `{tunnel_id, tool_calls?,
 * bandwidth_bytes?}` sets this month's counters, effective on the next request. Answered only
 * on a connection from this machine, to a Host that is an address or `localhost` (never a public
 * hostname), not relayed by a proxy (no `X-Forwarded-For` or `Forwarded`), with
 * `Authorization: Bearer <settings.admin_secret>`; anything else gets the same
 * 404 as an unknown path, or 401 for a wrong secret.
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isIP } from 'node:net'
import type { Logger } from '@burrow/protocol'
import { readBody } from '../http/read-body.js'
import { sendJson } from '../http/responses.js'
import { sendRefusal } from '../http/send-refusal.js'
import { periodOf } from './period.js'
import { USAGE_ADMIN_PATH } from './usage-admin-settings.js'
import type { UsageCounters, UsageMetric } from './usage-counters.js'

/** Largest request body accepted. */
const MAX_BODY_BYTES = 4096

/** What the route changes, in the body's and the answer's words. */
const FIELDS: readonly (readonly [string, UsageMetric])[] = [
  ['tool_calls', 'tool_calls'],
  ['bandwidth_bytes', 'bandwidth_bytes'],
]

/** Options of `UsageAdminRoute`. */
export interface UsageAdminRouteOptions {
  /** `settings.admin_secret`. */
  readonly secret: string
  /** The live counters, or null when quotas are off. */
  readonly counters: UsageCounters | null
  readonly log: Logger
  readonly clock?: () => Date
}

/** Serves `POST /internal/usage`. */
export class UsageAdminRoute {
  readonly #secret: Buffer
  readonly #counters: UsageCounters | null
  readonly #log: Logger
  readonly #clock: () => Date

  constructor(options: UsageAdminRouteOptions) {
    this.#secret = Buffer.from(options.secret)
    this.#counters = options.counters
    this.#log = options.log
    this.#clock = options.clock ?? (() => new Date())
  }

  /** True when `req` is for this route from this machine (else the app answers it: 404). */
  matches(req: IncomingMessage): boolean {
    const path = (req.url ?? '/').split('?', 1)[0]
    // Not relayed by a proxy either: the front proxy's catch-all site passes on a Host of
    // `127.0.0.1` that a stranger sent it, from this machine (as the TLS question does).
    return (
      path === USAGE_ADMIN_PATH &&
      fromThisMachine(req) &&
      hostIsLocal(req.headers.host) &&
      req.headers['x-forwarded-for'] === undefined &&
      req.headers.forwarded === undefined
    )
  }

  /** Answer a request `matches` accepted. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      return sendRefusal(
        res,
        'method_not_allowed',
        'method not allowed',
        `${USAGE_ADMIN_PATH} accepts POST`,
        {
          headers: { allow: 'POST' },
        },
      )
    }
    if (!this.#authorized(req.headers.authorization)) {
      return sendRefusal(
        res,
        'unauthorized',
        'unauthorized',
        'a bearer token equal to settings.admin_secret is required; use "burrowd usage set"',
      )
    }
    const read = await readBody(req, MAX_BODY_BYTES)
    if (read === 'aborted') return
    if (read === 'too_large') {
      return sendRefusal(
        res,
        'payload_too_large',
        'request too large',
        `at most ${MAX_BODY_BYTES} bytes`,
      )
    }
    const input = parseInput(read)
    if (typeof input === 'string')
      return sendRefusal(res, 'invalid_request', 'invalid request', input)
    if (this.#counters === null) {
      return sendJson(res, 409, {
        error:
          'quotas are off in this burrowd (BURROW_QUOTAS=off): there are no live counters to set',
      })
    }
    const now = this.#clock()
    for (const [field, metric] of FIELDS) {
      const value = input.values[field]
      if (value !== undefined) await this.#counters.set(input.tunnelId, metric, value, now)
    }
    const answer: Record<string, string | number> = {
      tunnel_id: input.tunnelId,
      period: periodOf(now),
    }
    for (const [field, metric] of FIELDS) {
      answer[field] = await this.#counters.get(input.tunnelId, metric, now)
    }
    this.#log.info(`usage set for ${input.tunnelId}: ${JSON.stringify(input.values)}`)
    sendJson(res, 200, answer)
  }

  #authorized(header: string | undefined): boolean {
    const match = /^Bearer (\S+)$/.exec(header ?? '')
    const given = Buffer.from(match?.[1] ?? '')
    return given.length === this.#secret.length && timingSafeEqual(given, this.#secret)
  }
}

type Input = { tunnelId: string; values: Partial<Record<string, number>> }

/** The body, or what is wrong with it. */
function parseInput(body: Buffer): Input | string {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    return 'the body must be JSON: {"tunnel_id": "tun_…", "tool_calls": N, "bandwidth_bytes": N}'
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'the body must be a JSON object'
  }
  const fields = value as Record<string, unknown>
  const tunnelId = fields.tunnel_id
  if (typeof tunnelId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(tunnelId)) {
    return 'tunnel_id must be a tunnel id such as tun_0123abcd'
  }
  const values: Partial<Record<string, number>> = {}
  for (const [field] of FIELDS) {
    const n = fields[field]
    if (n === undefined) continue
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
      return `${field} must be a whole number of at least 0`
    }
    values[field] = n
  }
  if (Object.keys(values).length === 0) return 'give tool_calls, bandwidth_bytes or both'
  return { tunnelId, values }
}

/** A loopback connection, or one from an address of this machine to itself. */
function fromThisMachine(req: IncomingMessage): boolean {
  const remote = req.socket.remoteAddress ?? ''
  return isLoopback(remote) || remote === req.socket.localAddress
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address)
}

/** `127.0.0.1:7100`, `[::1]:7100`, `localhost:7100`: not a name a public request carries. */
function hostIsLocal(host: string | undefined): boolean {
  if (host === undefined) return false
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '')
  return name.toLowerCase() === 'localhost' || isIP(name) !== 0
}
