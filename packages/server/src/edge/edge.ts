/**
 * The public edge: `/mcp` on `<sub>--<slug>.<zone>`. Reads what it must of each request (a POST's
 * JSON-RPC body), applies the session cap and the monthly quotas, refuses with the envelope when
 * it must, and streams everything else through the tunnel both ways without buffering: the
 * agent's pace governs the credit the tunnel grants.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  JSONRPC_CODE,
  MAX_CHUNK_BYTES,
  POLICY_STATUS,
  isBodyProblem,
  readJsonRpcBody,
  refusalIds,
  requestHeadProblem,
  type JsonRpcBody,
  type MuxStream,
  type RequestHead,
} from '@burrow/protocol'
import { PLANS } from '../plans.js'
import { FORWARDING_ROOM } from '../cluster/cluster-router.js'
import { localRoute, localRouteNow, type TunnelRoute } from '../cluster/tunnel-route.js'
import { ClientAddresses, rateKeyOf } from '../http/client-addresses.js'
import type { CallHistorySink } from '../quota/call-history.js'
import type { EdgeSessions } from '../quota/edge-sessions.js'
import { ExchangeRecord } from './exchange-record.js'
import { preflightHeaders, upstreamRequestHeaders } from './forward-headers.js'
import { bodyRefusal } from './body-facts.js'
import {
  mirroredHeaderRefusal,
  repeatedHeaderRefusal,
  sendHeaderMismatch,
} from './mirrored-headers.js'
import { VersionMismatches } from './version-mismatches.js'
import { bodyLabelProblem } from './body-labels.js'
import { CallContinuations } from './call-continuations.js'
import { stillRouted } from './still-routed.js'
import { admitRequest, type AdmissionRules, type Refuse } from './admit-request.js'
import { BodyBudget } from '../http/body-budget.js'
import { AnswerBudget } from './answer-budget.js'
import type { CustomHost, EdgeOptions } from './edge-options.js'
import { readBody } from '../http/read-body.js'
import { noteRefusedIds } from './request-ids.js'
import { endRevoked } from './end-revoked.js'
import { sendBodyRefusal } from './send-body-refusal.js'
import { cutResponse } from './cut-response.js'
import { relayResponse } from './relay-response.js'
import { sendRefusal } from '../http/send-refusal.js'
import { singleHeader } from '../http/single-header.js'
import { answerShaper, forwardedRedactor, governRequest, rugPullFor } from './govern-request.js'
import { PendingListings } from './pending-listings.js'
import { LivePolicy } from './live-policy.js'
import { streamShaper } from './stream-shaper.js'
import { AdmittedExchanges, opensStream } from './admitted-exchanges.js'
import { requestHeadBytes } from './head-bytes.js'
import { agentLabel } from '../access/agent-identity.js'
import { isProtectedResourcePath, serveProtectedResource } from '../access/protected-resource.js'
const METHODS = new Set(['POST', 'GET', 'DELETE'])
/**
 * Pauses before a request refused before any processing is sent again (a tunnel moving between
 * nodes): 50 ms more each time, at most this long. It is sent again until the tunnel's queue
 * wait (`BURROW_QUEUE_WAIT_MS`) has passed since the first refusal.
 */
const MAX_RETRY_PAUSE_MS = 250
export type { CustomHost, EdgeOptions, HostGate } from './edge-options.js'

/** Serves tunnel hostnames. */
export class Edge {
  private readonly opts: EdgeOptions
  private readonly sessions: EdgeSessions | null
  private readonly history: CallHistorySink | null
  private readonly addresses: ClientAddresses
  private readonly bodies: BodyBudget
  private readonly answers: AnswerBudget
  private readonly continuations: CallContinuations
  /** The requests the access gate admitted that are still open. */
  private readonly admitted = new AdmittedExchanges()
  /** The `tools/list` requests in flight, per tunnel and session (and on other nodes). */
  private readonly listings: PendingListings
  /** The session cap and the quotas. */
  private readonly admission: AdmissionRules
  /** Agents seen sending a header that disagrees with the body (logged once per tunnel). */
  private readonly mismatches: VersionMismatches

  constructor(opts: EdgeOptions) {
    this.opts = opts
    this.sessions = opts.sessions ?? null
    this.history = opts.history ?? null
    this.addresses = opts.addresses ?? new ClientAddresses()
    this.bodies = opts.bodies ?? new BodyBudget()
    this.answers = opts.answers ?? new AnswerBudget()
    this.continuations = opts.continuations ?? new CallContinuations()
    this.listings = opts.listings ?? new PendingListings()
    this.mismatches = new VersionMismatches(opts.log)
    this.admission = {
      sessions: this.sessions,
      quotas: opts.quotas ?? null,
      continuations: this.continuations,
    }
  }

  /** End what `tunnelId`'s access no longer admits (every open stream without one); how many. */
  recheckAccess(tunnelId?: string): Promise<number> {
    const { admitted } = this
    return tunnelId === undefined ? admitted.recheckStreams() : admitted.recheck(tunnelId)
  }

  /** Bytes of request bodies held now (read or being read, their requests not yet answered). */
  get bodyBytesHeld(): number {
    return this.bodies.total
  }

  /** Bytes of answer copies held now (answers being tapped or rewritten as they pass). */
  get answerBytesHeld(): number {
    return this.answers.total
  }

  /**
   * Handle a request whose Host is the tunnel label `label` (`<sub>--<slug>`), or a name routed
   * to it (a custom domain: its origin names the OAuth resource, and its `gate` is checked beside
   * the tunnel's plan).
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    label: string,
    host: string,
    custom?: CustomHost,
  ): Promise<void> {
    const started = performance.now()
    const arrivedAt = new Date()
    const url = req.url ?? '/'
    const path = url.split('?', 1)[0]
    const origin = custom?.origin ?? this.opts.access?.originOf(label) ?? ''
    if (this.opts.access && isProtectedResourcePath(path)) {
      return serveProtectedResource(req, res, this.opts.access, origin)
    }
    if (path !== '/mcp') {
      return sendRefusal(
        res,
        'not_found',
        'not found',
        `only /mcp is served on tunnel hosts, not ${path}`,
      )
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, preflightHeaders(req.headers['access-control-request-headers'])).end()
      return
    }
    if (!req.method || !METHODS.has(req.method)) {
      return sendRefusal(
        res,
        'method_not_allowed',
        'method not allowed',
        `${req.method} is not an MCP method`,
        {
          headers: { allow: 'GET, POST, DELETE, OPTIONS' },
        },
      )
    }
    // What is cached is used without waiting a turn (most requests: a tunnel in use).
    const tunnel = this.opts.lookup.cachedByLabel(label) ?? (await this.opts.lookup.byLabel(label))
    const clientIp = this.addresses.of(req)
    const accessGeneration = this.opts.access?.generation
    // Who may call comes first: a caller who may not learns nothing, not even whether it is online.
    const access = this.opts.access
      ? await this.opts.access.check(
          tunnel?.id ?? null,
          origin,
          clientIp,
          singleHeader(req.headers.authorization),
        )
      : null
    if (access !== null && !access.ok) {
      return sendRefusal(res, access.code, access.message, access.reason, {
        headers: access.headers,
      })
    }
    if (!tunnel) {
      return sendRefusal(res, 'tunnel_not_found', 'tunnel not found', `no tunnel is named ${host}`)
    }
    let rpc: JsonRpcBody | null = null
    if (access !== null) {
      // Admitted now; ended if the tunnel's access changes so that the gate would refuse it.
      const gate = this.opts.access!
      const authorization = singleHeader(req.headers.authorization)
      const allowed = async () =>
        (await gate.check(tunnel.id, origin, clientIp, authorization)).ok &&
        (await stillRouted(this.opts.lookup, label, tunnel.id, custom))
      const end = () => endRevoked(req, res)
      const stale = gate.generation !== accessGeneration
      const stream = () => opensStream(req.method, rpc)
      res.once('close', this.admitted.add(tunnel.id, allowed, end, stream, stale))
    }
    let body: Buffer | undefined
    const holder = { address: rateKeyOf(clientIp), tunnel: tunnel.id }
    if (req.method === 'POST') {
      const read = await readBody(req, this.opts.maxBodyBytes, { budget: this.bodies, holder })
      if (read === 'aborted' || read === 'answered') return
      if (read === 'over_budget' || read === 'too_large') {
        return sendBodyRefusal(req, res, read, this.opts.maxBodyBytes)
      }
      // The body is held until the request is answered (or the agent hangs up).
      res.once('close', () => this.bodies.give(holder, read.length))
      const parsed = readJsonRpcBody(read)
      // What the edge reads must be what the server reads (body-labels.ts).
      const mislabelled = bodyLabelProblem(req.rawHeaders)
      if (mislabelled !== null) {
        return sendRefusal(res, 'invalid_request', 'Invalid Request', mislabelled, {
          id: isBodyProblem(parsed) ? null : refusalIds(parsed),
          jsonRpcCode: JSONRPC_CODE.invalidRequest,
        })
      }
      if (isBodyProblem(parsed)) {
        return sendRefusal(res, parsed.policy, parsed.message, parsed.reason, {
          jsonRpcCode: parsed.code,
        })
      }
      // Before the body's checks, which read MCP-Protocol-Version sent once.
      const mismatch = mirroredHeaderRefusal(parsed, req.rawHeaders)
      if (mismatch !== null) return sendHeaderMismatch(res, mismatch, refusalIds(parsed))
      const refused = bodyRefusal(parsed, singleHeader(req.headers['mcp-protocol-version']))
      if (refused !== null) {
        return sendRefusal(res, 'invalid_request', 'Invalid Request', refused, {
          id: refusalIds(parsed),
          jsonRpcCode: JSONRPC_CODE.invalidRequest,
        })
      }
      rpc = parsed
      body = read
      this.mismatches.note(tunnel.id, parsed, singleHeader(req.headers['mcp-protocol-version']))
    } else {
      const repeated = repeatedHeaderRefusal(req.rawHeaders)
      if (repeated !== null) return sendHeaderMismatch(res, repeated, null)
    }
    const ids = refusalIds(rpc)
    noteRefusedIds(req, ids)
    const sessionId = singleHeader(req.headers['mcp-session-id'])
    const policies = this.opts.policies
    const governance = policies
      ? (policies.cachedGovernance(tunnel.id) ?? (await policies.governance(tunnel.id)))
      : null
    const record = new ExchangeRecord({
      tunnel,
      method: req.method,
      body: rpc,
      bodyBytes: body?.length ?? 0,
      sessionId,
      agent: access?.ok ? agentLabel(access.agent) : null,
      agentId: access?.ok ? access.agent.id : null,
      history: this.history,
      sessions: this.sessions,
      governance,
      arrivedAt,
      started,
      continuations: this.continuations,
      latestGovernance: policies ? () => policies.latest(tunnel.id) : undefined,
    })
    res.once('close', () => record.closed())
    const refuse: Refuse = (code, message, reason, headers) => {
      record.refused(POLICY_STATUS[code], code, reason)
      sendRefusal(res, code, message, reason, { id: ids, ...(headers ? { headers } : {}) })
    }

    // What the tunnel cannot carry is refused here, before anything is counted or forwarded.
    const head: RequestHead = {
      method: req.method,
      path: url,
      headers: upstreamRequestHeaders(req.rawHeaders, {
        clientIp,
        proto: this.opts.publicScheme,
        host: req.headers.host ?? host,
        dropCredentials: access?.dropCredentials ?? false,
        agent: access?.ok ? access.agent.id : null,
      }),
    }
    const headProblem = requestHeadProblem(head, FORWARDING_ROOM)
    if (headProblem !== null) {
      return headProblem.kind === 'path'
        ? refuse('uri_too_long', 'request path too long', headProblem.message)
        : refuse('headers_too_large', 'request headers too large', headProblem.message)
    }

    if (!tunnel.serving) {
      const plan = PLANS[tunnel.plan]
      return refuse(
        'plan_limit',
        'tunnel stopped by plan limit',
        `the ${plan.name} plan serves ${plan.tunnels} tunnel${plan.tunnels === 1 ? '' : 's'} and this account has more; ` +
          'its owner can upgrade or choose which tunnels serve in the dashboard',
      )
    }
    const gated = custom?.gate(tunnel) ?? null
    if (gated !== null) return refuse(gated.code, gated.message, gated.reason)
    const offline = () =>
      refuse(
        'tunnel_offline',
        'tunnel offline',
        `no burrow client is connected to ${host}; start it with "burrow up"`,
      )
    // Offline first, so that a request for an offline tunnel is not counted.
    const routed = this.routeNow(tunnel.id) ?? (await this.route(tunnel.id))
    if (!res.destroyed && res.writableEnded) return // refused meanwhile (end-revoked.ts)
    if (!routed || res.destroyed) return offline()
    const rugPull = rugPullFor(this.opts.pins ?? null, tunnel, governance, rpc)
    const rug = rugPull instanceof Promise ? await rugPull : rugPull
    const agentId = access?.ok ? access.agent.id : null
    // The policy before the quotas: a call the policy refuses is never counted.
    if (governance !== null) {
      const limits = this.opts.rateLimits ?? null
      const refused = await governRequest(governance, limits, rpc, rug, agentId)
      if (refused !== null)
        return refuse(refused.code, refused.message, refused.reason, refused.headers)
    }
    const admitted = await admitRequest(
      this.admission,
      {
        tunnel,
        method: req.method ?? 'GET',
        rpc,
        requestBytes: (body?.length ?? 0) + requestHeadBytes(req.method, url, req.rawHeaders),
        sessionId,
        agentId,
        record,
        // A response streaming on past the month's bandwidth is cut (quota/quota-gate.ts).
        cut: () => cutResponse(req, res),
      },
      refuse,
    )
    if (!admitted) return
    // The route again: the client may have reconnected (or started draining) meanwhile.
    const route = this.routeNow(tunnel.id) ?? (await this.route(tunnel.id))
    if (res.destroyed || res.writableEnded) return
    if (!route) return offline()

    let retries = 0
    let retryUntil = 0
    const send = (to: TunnelRoute): MuxStream => {
      if (!body || body.length <= MAX_CHUNK_BYTES) {
        return to.open(head, body && body.length > 0 ? body : undefined, true)
      }
      const opened = to.open(head, undefined, false)
      opened.write(body)
      opened.end()
      return opened
    }
    // An agent's listings are its session's; without a session (stateless servers), its
    // address's, so that one agent's listing does not hold back every other agent's answers.
    const scope = sessionId !== undefined ? `session ${sessionId}` : `address ${holder.address}`
    if (rpc?.messages.some((m) => m.kind === 'request' && m.method === 'tools/list')) {
      res.once('close', this.listings.add(tunnel.id, scope))
    }
    const held = (rewriting: boolean) => this.answers.for(holder, rewriting)
    const listingPending = () => this.listings.has(tunnel.id, scope)
    // A GET's stream lives long: each event is shaped by the policy as it is when it passes.
    const live =
      req.method === 'GET' && policies && governance
        ? new LivePolicy(policies, this.opts.pins ?? null, tunnel, governance, rug)
        : null
    relayResponse(send(route), res, {
      ids,
      record,
      log: this.opts.log,
      // A GET's head passes the live policy's gate too: its headers are masked as it is then.
      redactor: live ? null : forwardedRedactor(governance),
      liveRedactor: live && (() => forwardedRedactor(live.governance)),
      shape: live
        ? streamShaper(live, record, held, listingPending)
        : answerShaper(governance, rpc, record, rug, held, listingPending),
      gate: live && (() => live.refresh()),
      // Refused before any processing (a client or node moving on): again, wherever the tunnel
      // is now, after a pause for the move, as long as a request waits for a reconnecting client.
      retry: async () => {
        const now = performance.now()
        if (retries === 0) retryUntil = now + this.opts.queueWaitMs
        const pause = Math.min(50 * ++retries, MAX_RETRY_PAUSE_MS)
        if (now + pause >= retryUntil) return null
        await new Promise((resolve) => setTimeout(resolve, pause))
        const again = await this.route(tunnel.id, retryUntil - performance.now())
        return again === null || res.destroyed || res.writableEnded ? null : send(again)
      },
    })
  }

  /**
   * Where a request for `tunnelId` goes now, waiting up to `waitMs` (the queue wait by default)
   * for a reconnecting client.
   */
  private route(tunnelId: string, waitMs = this.opts.queueWaitMs): Promise<TunnelRoute | null> {
    const wait = Math.max(0, Math.round(waitMs))
    return this.opts.router
      ? this.opts.router.route(tunnelId, wait)
      : localRoute(this.opts.registry, tunnelId, wait)
  }

  /** The route to `tunnelId` when its client is connected to this node now, without waiting. */
  private routeNow(tunnelId: string): TunnelRoute | null {
    return localRouteNow(this.opts.registry, tunnelId)
  }
}
