/**
 * The SSRF guard of outbound webhooks. Endpoint URLs are chosen by users, so without it a
 * delivery could reach burrowd's own host, its private network or a cloud metadata service.
 * Names are resolved once, inside the connection: the undici `Agent` built here checks every
 * address a name resolves to and connects to exactly those, so a DNS answer that changes between
 * a check and the connect (rebinding) has nothing to slip through. IP literals never reach a
 * lookup, so they are checked before a request is made (`literalRefusal`).
 */

import type { LookupAddress } from 'node:dns'
import { isIP } from 'node:net'
import type { LookupFunction } from 'node:net'
import { Agent } from 'undici'
import { ADDRESS_KIND_TEXT, ALWAYS_REFUSED, addressKind } from './address-kind.js'
import { SHARED_ASKER, systemResolve } from './system-resolve.js'

/** The operator switch that lets webhooks reach private addresses (docs/configuration.md). */
export const ALLOW_PRIVATE_VARIABLE = 'BURROW_WEBHOOKS_ALLOW_PRIVATE'

/**
 * Resolves a hostname to every address it has, in the order to try them; `who` is whose turn
 * at burrowd's lookup places it takes (an account; system-resolve.ts); `signal` aborts when the
 * guard's owner stops (a lookup still waiting for a place is then dropped, never run); one that
 * waited `waitMs` for a place fails unrun (its connection has given up by then).
 */
export type ResolveHost = (
  hostname: string,
  who?: string,
  signal?: AbortSignal,
  waitMs?: number,
) => Promise<readonly LookupAddress[]>

/** A connection the guard refused; `message` says why (delivery-error.ts says what is shown). */
export class AddressRefusedError extends Error {
  /** Stable code for callers that branch on it. */
  readonly code = 'address_refused'

  /**
   * Whether the URL named a host, whose lookup gave the refused address (what burrowd's DNS
   * answers is then for its own log, not the delivery log: delivery-error.ts).
   */
  readonly forName: boolean

  constructor(message: string, forName = false) {
    super(message)
    this.forName = forName
    this.name = 'AddressRefusedError'
  }
}

/** Options of `new UrlGuard`. */
export interface UrlGuardOptions {
  /** Allow loopback, private, link-local, shared and reserved addresses (`BURROW_WEBHOOKS_ALLOW_PRIVATE`). */
  readonly allowPrivate: boolean
  /** How names are resolved; defaults to the system resolver (`dns.lookup`, all addresses). */
  readonly resolve?: ResolveHost
  /** How long a TCP/TLS connect may take, in ms (default 10 000). */
  readonly connectTimeoutMs?: number
  /** Whose turn `dispatcher`'s lookups take (default: the shared one, `SHARED_ASKER`). */
  readonly asker?: string
  /**
   * Whose turn `dispatcher`'s lookup of a host takes, by its name (the OAuth guard's: the
   * client document's domain, client-document-asker.ts); `asker` is then not used.
   */
  readonly askerOf?: (hostname: string) => string
  /**
   * Aborted when the guard's owner stops: its lookups waiting for a place are dropped then,
   * not when `close` is called (which also drops them).
   */
  readonly signal?: AbortSignal
}

/**
 * Why a request to `address` (reached as `host`) is refused, e.g. "refused: 127.0.0.1 is a
 * loopback address; set BURROW_WEBHOOKS_ALLOW_PRIVATE=1 to allow private addresses", or null.
 */
export function addressRefusal(
  host: string,
  address: string,
  allowPrivate: boolean,
): string | null {
  const kind = addressKind(address)
  if (kind === null || (allowPrivate && !ALWAYS_REFUSED.has(kind))) return null
  const what = ADDRESS_KIND_TEXT[kind]
  const subject =
    host === address ? `${address} is ${what}` : `${host} resolves to ${address}, ${what}`
  const hint = ALWAYS_REFUSED.has(kind)
    ? 'webhooks are never sent there'
    : `set ${ALLOW_PRIVATE_VARIABLE}=1 to allow private addresses`
  return `refused: ${subject}; ${hint}`
}

/** The refusal for a URL hostname that is an IP literal (brackets allowed), or null. */
export function literalRefusal(hostname: string, allowPrivate: boolean): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  return isIP(bare) === 0 ? null : addressRefusal(bare, bare, allowPrivate)
}

/**
 * The refusal for a hostname at registration: an IP literal that is not allowed, or a
 * `localhost` name (always loopback, RFC 6761). Other names are checked at every delivery.
 */
export function registrationRefusal(hostname: string, allowPrivate: boolean): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (!allowPrivate && (name === 'localhost' || name.endsWith('.localhost'))) {
    return `refused: ${name} is a loopback name; set ${ALLOW_PRIVATE_VARIABLE}=1 to allow private addresses`
  }
  return literalRefusal(hostname, allowPrivate)
}

/** Connects deliveries only to addresses the policy allows. One per dispatcher. */
export class UrlGuard {
  /** Whether private addresses are allowed. */
  readonly allowPrivate: boolean
  /** The undici dispatcher to send through; it checks every resolved address before connecting. */
  readonly dispatcher: Agent
  readonly #resolve: ResolveHost
  readonly #connectTimeoutMs: number
  readonly #closing = new AbortController()
  /** Aborted at `close` or by the owner's signal: the guard's lookups are no longer wanted. */
  readonly #stopped: AbortSignal

  constructor(options: UrlGuardOptions) {
    this.allowPrivate = options.allowPrivate
    this.#resolve = options.resolve ?? systemResolve
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000
    this.#stopped = options.signal
      ? AbortSignal.any([options.signal, this.#closing.signal])
      : this.#closing.signal
    const asker = options.asker ?? SHARED_ASKER
    this.dispatcher = this.dispatcherFor(options.askerOf ?? (() => asker))
  }

  /**
   * A dispatcher of its own whose lookups take `who`'s turns (one per attempt of an account's
   * delivery: undici's lookup is told nothing of the request it connects for). The caller
   * destroys it when done.
   */
  dispatcherFor(who: string | ((hostname: string) => string)): Agent {
    return new Agent({
      connect: { lookup: this.#lookupFor(who), timeout: this.#connectTimeoutMs },
      // Receivers are many and rarely called twice in a row: do not hold sockets open for long.
      keepAliveTimeout: 4_000,
      // No cap per host: one host serves many users' receivers (a hosted request bin), and a
      // cap let the requests some users' paths there never answer hold every other user's in
      // line until their deadlines ran out. Callers bound how many requests they make at once.
    })
  }

  /** Refusal for a URL hostname that is an IP literal (names are checked on connect), or null. */
  literalRefusal(hostname: string): string | null {
    return literalRefusal(hostname, this.allowPrivate)
  }

  /** Drop the lookups still waiting for a place, and close the dispatcher's sockets. */
  async close(): Promise<void> {
    this.#closing.abort()
    await this.dispatcher.close()
  }

  /** `net.connect`'s lookup: resolve, refuse if any address is not allowed, hand over the rest. */
  #lookupFor =
    (who: string | ((hostname: string) => string)): LookupFunction =>
    (hostname, options, callback) => {
      const asker = typeof who === 'string' ? who : who(hostname)
      // The connection's timeout counts from before the lookup: one still waiting for a place
      // then is no longer wanted, and must not run later.
      this.#resolve(hostname, asker, this.#stopped, this.#connectTimeoutMs).then(
        (found) => {
          const wanted = options.family === 4 || options.family === 6 ? options.family : 0
          const addresses = found.filter((a) => wanted === 0 || a.family === wanted)
          // One bad address refuses the name: an attacker controls the order we would try them in.
          const refusal = found
            .map((a) => addressRefusal(hostname, a.address, this.allowPrivate))
            .find((r) => r !== null)
          const first = addresses[0]
          if (refusal !== undefined) callback(new AddressRefusedError(refusal, true), '', 0)
          else if (first === undefined) callback(notFound(hostname), '', 0)
          else if (options.all === true) callback(null, addresses)
          else callback(null, first.address, first.family)
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      )
    }
}

function notFound(hostname: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${hostname} has no addresses`)
  error.code = 'ENOTFOUND'
  return error
}
