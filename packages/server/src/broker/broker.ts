/**
 * The broker's front door: WebSocket upgrades from `burrow up`. The tunnel key is checked on the
 * upgrade request, and a bad one gets a 401 before any 101, which the CLI turns into
 * "authentication failed" and no retry. Failed checks are throttled per client address and per
 * node (key-guard.ts): past an address's limit the answer is 429 before any lookup; past the
 * node's, keys are still looked up and a valid one connects, an unknown one gets 429.
 */
import type { RateLimits } from '../http/rate-limits.js'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { MAX_FRAME_BYTES, type Logger } from '@burrow/protocol'
import { WebSocketServer } from 'ws'
import type { ClientAddresses } from '../http/client-addresses.js'
import { hashKey } from '../store/hash-key.js'
import type { TunnelWithAccount } from '../store/store.js'
import { KeyGuard } from './key-guard.js'
import { CONNECTIONS_PER_KEY, ReconnectLimit } from './reconnect-limit.js'
import { rejectUpgrade } from './reject-upgrade.js'
import type { TunnelRegistry } from './tunnel-registry.js'

/** Seconds a tunnel client whose key could not be checked is asked to wait. */
const KEY_CHECK_RETRY_AFTER_S = 5

/** What the broker needs. */
export interface BrokerOptions {
  readonly findTunnelByKey: (key: string) => Promise<TunnelWithAccount | undefined>
  readonly registry: TunnelRegistry
  readonly log: Logger
  /** Who is connecting, behind the trusted proxies. */
  readonly addresses: ClientAddresses
  /** Milliseconds clock for the key-check throttle (tests pass their own). */
  readonly now?: () => number
  /** Told the outcome of every key check (burrowd's metrics count them). */
  readonly onKeyCheck?: (outcome: 'valid' | 'unknown' | 'throttled' | 'error') => void
  /** Where the per-address limit on failed key checks is kept (default: this process's own). */
  readonly limits?: RateLimits
}

/** Accepts tunnel connections. */
export class Broker {
  private readonly opts: BrokerOptions
  private readonly guard: KeyGuard
  private readonly reconnects: ReconnectLimit
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_FRAME_BYTES,
    clientTracking: false,
  })

  constructor(opts: BrokerOptions) {
    this.opts = opts
    this.guard = new KeyGuard({
      log: opts.log,
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.limits ? { limits: opts.limits } : {}),
    })
    this.reconnects = new ReconnectLimit(opts.limits, opts.now)
  }

  /** Handle an `upgrade` event addressed to the service host. */
  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => {})
    const auth = req.headers.authorization ?? ''
    const match = /^Bearer\s+(\S+)$/i.exec(auth)
    if (!match?.[1]) {
      return rejectUpgrade(
        socket,
        'unauthorized',
        'send the tunnel key as "Authorization: Bearer mtk_…"',
        'missing tunnel key',
      )
    }
    // Kept with the connection: the node checks it again now and then (key-recheck.ts).
    const keyHash = hashKey(match[1])
    // A key connecting too often is refused before it is looked up (reconnect-limit.ts).
    const often = this.reconnects.check(keyHash)
    if (!often.ok) return this.refuseReconnect(socket, often.retryAfterSecs)
    const address = this.opts.addresses.rateKey(req)
    const allowed = this.guard.check(address)
    if (!allowed.ok) {
      this.opts.onKeyCheck?.('throttled')
      return rejectUpgrade(
        socket,
        'rate_limited',
        `too many connections with unknown tunnel keys from this address; retry in ${allowed.retryAfterSecs} s`,
        'too many attempts',
        { 'retry-after': String(allowed.retryAfterSecs) },
      )
    }
    let tunnel: TunnelWithAccount | undefined
    // A revocation from now on closes the connection, even before it is attached.
    const checkedFrom = this.opts.registry.now()
    try {
      tunnel = await this.opts.findTunnelByKey(match[1])
    } catch (err) {
      this.guard.passed(address)
      this.opts.onKeyCheck?.('error')
      this.opts.log.error(`broker: key lookup failed: ${(err as Error).message}`)
      // The database or Redis not answering (a stall, a restart): the client is told when to
      // come back, as an agent is (http/answer-failure.ts), rather than at its own pace.
      return rejectUpgrade(
        socket,
        'tunnel_offline',
        `the tunnel service could not check the key; retry in ${KEY_CHECK_RETRY_AFTER_S} s`,
        'service unavailable',
        { 'retry-after': String(KEY_CHECK_RETRY_AFTER_S) },
      )
    }
    if (!tunnel) {
      const failure = this.guard.failed(address)
      this.opts.onKeyCheck?.('unknown')
      if (failure.throttled) {
        return rejectUpgrade(
          socket,
          'rate_limited',
          `too many connections with unknown tunnel keys; retry in ${failure.retryAfterSecs} s`,
          'too many attempts',
          { 'retry-after': String(failure.retryAfterSecs) },
        )
      }
      return rejectUpgrade(
        socket,
        'unauthorized',
        'the key is unknown or was rotated',
        'invalid tunnel key',
      )
    }
    this.guard.passed(address)
    this.opts.onKeyCheck?.('valid')
    const problem = handshakeProblem(req)
    if (problem !== null) {
      // `ws` would answer this with a bare HTML page; it gets the envelope like every refusal.
      return rejectUpgrade(socket, 'invalid_request', problem, 'bad WebSocket handshake')
    }
    if (!this.opts.registry.trusts(checkedFrom)) {
      // The lookup took so long that a revocation of the key since may be forgotten: the client
      // comes back and its key is checked again (the attach below follows with no wait).
      return rejectUpgrade(
        socket,
        'tunnel_offline',
        `the tunnel service took too long to check the key; retry in ${KEY_CHECK_RETRY_AFTER_S} s`,
        'service unavailable',
        { 'retry-after': String(KEY_CHECK_RETRY_AFTER_S) },
      )
    }
    // Spent once the key proved valid: lookups at once all passed the check above.
    const spent = this.reconnects.spend(keyHash)
    if (!spent.ok) return this.refuseReconnect(socket, spent.retryAfterSecs)
    const found = tunnel
    this.wss.handleUpgrade(req, socket, head, (ws) =>
      this.opts.registry.attach(ws, found, socket, checkedFrom, keyHash),
    )
  }

  private refuseReconnect(socket: Duplex, retryAfterSecs: number): void {
    rejectUpgrade(
      socket,
      'rate_limited',
      `this tunnel key connected ${CONNECTIONS_PER_KEY} times in a minute; retry in ${retryAfterSecs} s`,
      'too many connections',
      { 'retry-after': String(retryAfterSecs) },
    )
  }
}

/** What makes `req` no WebSocket handshake (RFC 6455 §4.2.1), or null. */
function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return 'a WebSocket handshake is a GET'
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket')
    return 'a tunnel client upgrades with "Upgrade: websocket"'
  if (!/^[+/0-9A-Za-z]{22}==$/.test(req.headers['sec-websocket-key'] ?? ''))
    return 'Sec-WebSocket-Key must be 16 random bytes in base64'
  if (req.headers['sec-websocket-version'] !== '13') return 'Sec-WebSocket-Version must be 13'
  return null
}
