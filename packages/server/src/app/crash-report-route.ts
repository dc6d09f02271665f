/**
 * `POST /api/crash-reports`: where `burrow` clients send an error report when they crash. Limited
 * per client address, then per node, before the body is read, bounded in size, validated, then stored; answered
 * `202 {"id": "crash_…"}`. Every refusal uses the one envelope (413, 400, 429 with Retry-After).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { JSONRPC_CODE, type Logger } from '@burrow/protocol'
import { readBody } from '../http/read-body.js'
import { sendJson } from '../http/responses.js'
import { sendRefusal } from '../http/send-refusal.js'
import type { CrashReportInput } from '../store/crash-report-store.js'
import { CRASH_REPORT_MAX_BYTES, parseCrashReportBody } from './crash-report-body.js'
import type { ClientAddresses } from '../http/client-addresses.js'
import type { RateLimiter } from '../http/rate-limiter.js'

/** Where accepted reports go (the store's `crashReports`). */
export interface CrashReportSink {
  add(report: CrashReportInput): Promise<{ readonly id: string }>
}

/** The allowances a report is taken from: its client address's, then the node's. */
export interface CrashReportLimiters {
  readonly address: RateLimiter
  readonly node: RateLimiter
}

/** Handles `POST /api/crash-reports`. */
export class CrashReportRoute {
  readonly #sink: CrashReportSink
  readonly #limiters: CrashReportLimiters
  readonly #addresses: ClientAddresses
  readonly #log: Logger

  constructor(
    sink: CrashReportSink,
    limiters: CrashReportLimiters,
    addresses: ClientAddresses,
    log: Logger,
  ) {
    this.#sink = sink
    this.#limiters = limiters
    this.#addresses = addresses
    this.#log = log
  }

  /** Answer one POST. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The address's allowance first, so that one address's flood spends none of the node's.
    const byAddress = this.#limiters.address.take(this.#addresses.rateKey(req))
    const decision = byAddress.ok ? this.#limiters.node.take('') : byAddress
    if (!decision.ok) {
      const wait = decision.retryAfterSecs
      const who = byAddress.ok ? 'this service received' : 'this address sent'
      sendRefusal(
        res,
        'rate_limited',
        'too many crash reports',
        `${who} too many crash reports; try again in ${wait} s`,
        { headers: { 'retry-after': String(wait) }, close: true },
      )
      return
    }
    const type = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase()
    if (type !== 'application/json') {
      sendRefusal(
        res,
        'invalid_request',
        'crash reports are JSON',
        'send the report with Content-Type: application/json',
        { close: true },
      )
      return
    }
    const raw = await readBody(req, CRASH_REPORT_MAX_BYTES)
    if (raw === 'aborted') return
    if (raw === 'too_large') {
      sendRefusal(
        res,
        'payload_too_large',
        'crash report too large',
        `a crash report may be at most ${CRASH_REPORT_MAX_BYTES} bytes; shorten the stack`,
        { close: true },
      )
      return
    }
    let json: unknown
    try {
      json = JSON.parse(raw.toString('utf8'))
    } catch (err) {
      sendRefusal(
        res,
        'parse_error',
        'malformed JSON',
        `the body is not JSON: ${(err as Error).message.slice(0, 200)}`,
        { jsonRpcCode: JSONRPC_CODE.parseError },
      )
      return
    }
    const report = parseCrashReportBody(json)
    if (typeof report === 'string') {
      sendRefusal(res, 'invalid_request', 'invalid crash report', report)
      return
    }
    const { id } = await this.#sink.add(report)
    this.#log.info(
      `crash report ${id} from burrow ${report.clientVersion} (${report.os}/${report.arch}, ${report.kind}): ${oneLine(report.message)}`,
    )
    sendJson(res, 202, { id })
  }
}

/** The first line of `text`, without control characters, at most 200 characters. */
function oneLine(text: string): string {
  const first = text.split('\n', 1)[0] ?? ''
  // eslint-disable-next-line no-control-regex
  return first.replace(/[\x00-\x1f\x7f-\x9f]/g, '?').slice(0, 200)
}
