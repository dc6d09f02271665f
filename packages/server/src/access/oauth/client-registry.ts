/**
 * Which OAuth clients may ask for a sign-in, and where they may be sent back to. Two ways in:
 *
 * - Client ID Metadata Documents: the `client_id` is an https URL whose JSON names the client
 *   and its redirect URIs. burrowd fetches it through the webhooks' SSRF guard (no private
 *   addresses, no redirects, a 5 s limit, at most 16 KiB) and keeps it for an hour; a client
 *   whose document cannot be fetched again keeps working from the copy for a day.
 * - Dynamic Client Registration (RFC 7591), the fallback: `POST /oauth/register` makes a public
 *   client (no secret: PKCE protects the code) with the redirect URIs it names.
 *
 * Both are made by strangers: of the clients no owner approved, the newest 10,000 are kept.
 */
import { randomBytes } from 'node:crypto'
import { request } from 'undici'
import { silentLogger, type Logger } from '@burrow/protocol'
import type { OauthClient, OauthClientStore } from '../../store/oauth-client-store.js'
import { networkOfRateKey } from '../../http/client-addresses.js'
import { RateLimiter } from '../../http/rate-limiter.js'
import type { UrlGuard } from '../../webhooks/url-guard.js'
import { hasDotSegment, isJsonType, mediaTypeOf } from './client-document-checks.js'
import { OauthError } from './oauth-error.js'
import { parseRedirectUris } from './redirect-uri.js'
import { ReservedFetches } from './reserved-fetches.js'
import { informationalLimit } from '../../webhooks/informational-limit.js'

/** Largest metadata document or registration body accepted, in bytes. */
export const MAX_CLIENT_METADATA_BYTES = 16 * 1024
const FRESH_MS = 3600_000
const STALE_LIMIT_MS = 24 * 3600_000
/** The whole fetch of a metadata document, its name's lookup and connection included. */
export const FETCH_TIMEOUT_MS = 5_000
const NAME_MAX = 200
/** The name of a registered client that gave none that can be shown. */
const DCR_NAME = 'an MCP client'
/** Metadata documents one client address may make burrowd fetch, per minute. */
export const METADATA_FETCHES_PER_ADDRESS = 10
/**
 * Metadata documents the whole node fetches per minute for anyone; documents of clients with
 * grants have a share of their own besides (`reserved-fetches.ts`).
 */
export const METADATA_FETCHES_PER_NODE = 120

/** Finds and registers clients. */
export class ClientRegistry {
  readonly #store: OauthClientStore
  readonly #guard: UrlGuard
  readonly #now: () => Date
  readonly #log: Logger
  /** Fetches are made for whoever asks for a sign-in, signed in or not: they are bounded. */
  readonly #perAddress: RateLimiter
  readonly #perNode: RateLimiter
  readonly #reserved: ReservedFetches

  constructor(
    store: OauthClientStore,
    guard: UrlGuard,
    now: () => Date = () => new Date(),
    log: Logger = silentLogger,
  ) {
    this.#store = store
    this.#guard = guard
    this.#now = now
    this.#log = log
    const clock = () => now().getTime()
    this.#perAddress = new RateLimiter({
      capacity: METADATA_FETCHES_PER_ADDRESS,
      perMs: 60_000,
      now: clock,
      overflowGroup: networkOfRateKey,
    })
    this.#perNode = new RateLimiter({
      capacity: METADATA_FETCHES_PER_NODE,
      perMs: 60_000,
      now: clock,
    })
    this.#reserved = new ReservedFetches(clock)
  }

  /** Whether `clientId` is a metadata document URL (else a registered client's id). */
  static isMetadataUrl(clientId: string): boolean {
    return clientId.startsWith('https://')
  }

  /** Register a client from an RFC 7591 request body. */
  async register(body: Record<string, unknown>): Promise<OauthClient> {
    const client: OauthClient = {
      clientId: 'dcr_' + randomBytes(16).toString('hex'),
      kind: 'dcr',
      name: clientName(body.client_name, DCR_NAME),
      redirectUris: parseRedirectUris(body.redirect_uris),
      fetchedAt: this.#now(),
    }
    checkPublicClient(body)
    // What burrowd honours, not the whole body: anyone may register, so a row stays small.
    const kept = { client_name: client.name, redirect_uris: client.redirectUris }
    await this.#store.put(client, JSON.stringify(kept), this.#now())
    await this.#store.evict()
    return client
  }

  /**
   * The client `clientId`; `OauthError` `invalid_client` when it is unknown or unreachable. A
   * metadata document not cached is fetched for `requester` (a client address) within its
   * budget and the node's; past either, `temporarily_unavailable`. The document of a client that
   * holds a grant is fetched again from a share of the node's fetches strangers cannot spend
   * (`reserved-fetches.ts`, bounded per approving account) first, whoever asks.
   */
  async find(clientId: string, requester = 'unknown'): Promise<OauthClient> {
    return heldToRules(await this.#find(clientId, requester))
  }

  async #find(clientId: string, requester: string): Promise<OauthClient> {
    if (clientId === '' || clientId.length > 2_000) {
      throw new OauthError('invalid_client', 'client_id is missing or too long')
    }
    // A document's URL is the client's identity on the consent page, shown as it is sent.
    if (!/^[\x21-\x7e]+$/.test(clientId)) {
      throw new OauthError(
        'invalid_client',
        'client_id must be written in printable ASCII (percent-encode the rest)',
      )
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(clientId) && !ClientRegistry.isMetadataUrl(clientId)) {
      throw new OauthError(
        'invalid_client',
        'a metadata document client_id must be an https URL with a path (no user or password)',
      )
    }
    const known = await this.#store.get(clientId)
    if (!ClientRegistry.isMetadataUrl(clientId)) {
      if (known === undefined || known.kind !== 'dcr') {
        throw new OauthError('invalid_client', 'unknown client_id; register the client first')
      }
      return known
    }
    const age = known ? this.#now().getTime() - known.fetchedAt.getTime() : Infinity
    if (known && age < FRESH_MS) return known
    // What would never be fetched is refused before it costs anyone's budget.
    this.#fetchableUrl(clientId)
    if (
      known &&
      this.#reserved.mayDraw(clientId) &&
      this.#reserved.take(clientId, await this.#store.grantAccounts(clientId))
    ) {
      return this.#fetchKnown(clientId, known, age)
    }
    const mine = this.#perAddress.peek(requester)
    const node = this.#perNode.peek('node')
    if (!mine.ok || !node.ok) {
      if (known && age < STALE_LIMIT_MS) return known
      const wait = !mine.ok ? mine.retryAfterSecs : node.ok ? 60 : node.retryAfterSecs
      throw new OauthError(
        'temporarily_unavailable',
        `too many client metadata documents are being fetched ${mine.ok ? 'right now' : 'for this address'}; retry in ${wait} s`,
      )
    }
    this.#perAddress.take(requester)
    this.#perNode.take('node')
    return this.#fetchKnown(clientId, known, age)
  }

  /** Fetch the document at `clientId`; a failure leaves a copy `age` ms old working for a day. */
  async #fetchKnown(
    clientId: string,
    known: OauthClient | undefined,
    age: number,
  ): Promise<OauthClient> {
    try {
      return await this.#fetch(clientId)
    } catch (err) {
      if (known && age < STALE_LIMIT_MS && !(err instanceof OauthError && err.status === 422)) {
        return known
      }
      throw err
    }
  }

  /** `clientId` as a URL burrowd may fetch, or `invalid_client` saying why not. */
  #fetchableUrl(clientId: string): URL {
    let parsed: URL
    try {
      parsed = new URL(clientId)
    } catch {
      throw new OauthError('invalid_client', 'client_id is not a URL')
    }
    if (
      parsed.protocol !== 'https:' ||
      parsed.pathname === '/' ||
      parsed.hash !== '' ||
      parsed.username !== '' ||
      parsed.password !== ''
    ) {
      throw new OauthError(
        'invalid_client',
        'a metadata document client_id must be an https URL with a path',
      )
    }
    if (hasDotSegment(clientId)) {
      // The URL parser resolves them, so the document fetched would be another URL's.
      throw new OauthError(
        'invalid_client',
        'a metadata document client_id must not have dot segments (. or ..) in its path',
      )
    }
    const refusal = this.#guard.literalRefusal(parsed.hostname)
    if (refusal !== null) throw new OauthError('invalid_client', `client metadata ${refusal}`)
    return parsed
  }

  /** Fetch, check and store the metadata document at `url`. */
  async #fetch(url: string): Promise<OauthClient> {
    const parsed = this.#fetchableUrl(url)
    let text: string
    const interim = informationalLimit()
    try {
      const res = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        dispatcher: this.#guard.dispatcher,
        signal: AbortSignal.any([AbortSignal.timeout(FETCH_TIMEOUT_MS), interim.signal]),
        onInfo: interim.onInfo,
      })
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => {})
        throw new OauthError('invalid_client', `client metadata answered HTTP ${res.statusCode}`)
      }
      const type = mediaTypeOf(res.headers['content-type'])
      if (!isJsonType(type)) {
        await res.body.dump().catch(() => {})
        throw new OauthError(
          'invalid_client_metadata',
          `client metadata must be served as application/json, not ${type || 'without a type'}`,
          422,
        )
      }
      text = await readBounded(res.body)
    } catch (err) {
      if (err instanceof OauthError) throw err
      // Anyone may ask, signed in or not: what DNS answered, or which address was refused, would
      // let strangers map the names and addresses burrowd's network can see. The operator's log
      // has it (one line per fetch, and fetches are bounded per address and per node).
      this.#log.info(`client metadata ${parsed.href} could not be fetched: ${failureOf(err)}`)
      throw new OauthError(
        'invalid_client',
        'client metadata could not be fetched from a public address (name unknown, address ' +
          'not public, or no answer in time)',
      )
    }
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch {
      throw new OauthError('invalid_client_metadata', 'client metadata is not JSON', 422)
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new OauthError('invalid_client_metadata', 'client metadata must be a JSON object', 422)
    }
    const body = doc as Record<string, unknown>
    if (body.client_id !== url) {
      throw new OauthError(
        'invalid_client_metadata',
        'client metadata must name its own URL as client_id',
        422,
      )
    }
    let redirectUris: string[]
    try {
      redirectUris = parseRedirectUris(body.redirect_uris)
    } catch (err) {
      throw new OauthError('invalid_client_metadata', (err as Error).message, 422)
    }
    const client: OauthClient = {
      clientId: url,
      kind: 'cimd',
      name: clientName(body.client_name, parsed.hostname),
      redirectUris,
      fetchedAt: this.#now(),
    }
    await this.#store.put(client, text, this.#now())
    await this.#store.evict()
    return client
  }
}

/**
 * The size of registration metadata as JSON. A body nested thousands of levels deep (64 KiB of
 * brackets) parses, but cannot be written out again: it counts as too large.
 */
export function metadataBytes(body: Record<string, unknown>): number {
  try {
    return Buffer.byteLength(JSON.stringify(body))
  } catch (err) {
    if (err instanceof RangeError) return Infinity
    throw err
  }
}

/**
 * `client` held to today's rules, though it was registered or cached under older ones: a name
 * or redirect URI that would no longer be accepted is not used (the name is replaced, the URI
 * left out, so a request naming it is refused).
 */
function heldToRules(client: OauthClient): OauthClient {
  const redirectUris = client.redirectUris.filter((uri) => {
    try {
      parseRedirectUris([uri])
      return true
    } catch {
      return false
    }
  })
  const fallback = client.kind === 'dcr' ? DCR_NAME : new URL(client.clientId).hostname
  const name = clientName(client.name, fallback)
  if (name === client.name && redirectUris.length === client.redirectUris.length) return client
  return { ...client, name, redirectUris }
}

/**
 * A display name: trimmed, printable, at most 200 characters, else `fallback`. Bidirectional
 * controls are refused too: the consent page puts the name in a sentence naming the tunnel and the
 * account, and an override left open in it would turn the rest of that sentence around.
 */
function clientName(value: unknown, fallback: string): string {
  if (typeof value !== 'string') return fallback
  const trimmed = value.trim()
  if (trimmed === '' || /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(trimmed)) {
    return fallback
  }
  return [...trimmed].slice(0, NAME_MAX).join('')
}

/** Refuse what a public client cannot be: one that asks for a secret or other grants. */
function checkPublicClient(body: Record<string, unknown>): void {
  const method = body.token_endpoint_auth_method
  if (method !== undefined && method !== 'none') {
    throw new OauthError(
      'invalid_client_metadata',
      'burrowd registers public clients only: token_endpoint_auth_method must be "none" (PKCE protects the code)',
    )
  }
  const grants = body.grant_types
  if (
    grants !== undefined &&
    (!Array.isArray(grants) ||
      !grants.every((g) => g === 'authorization_code' || g === 'refresh_token'))
  ) {
    throw new OauthError(
      'invalid_client_metadata',
      'grant_types may hold only authorization_code and refresh_token',
    )
  }
}

async function readBounded(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.length
    if (size > MAX_CLIENT_METADATA_BYTES) {
      throw new OauthError(
        'invalid_client_metadata',
        `client metadata is larger than ${MAX_CLIENT_METADATA_BYTES} bytes`,
        422,
      )
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** What a failed fetch says, with the cause undici wraps it around. */
function failureOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return `${err.message}${cause}`
}
