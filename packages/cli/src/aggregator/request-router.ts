/**
 * Where each agent request goes in aggregator mode. Lists are merged (`ListAggregator`); tools
 * and prompts are routed by their `<upstream>__` prefix; resources by URI (`ResourceRouter`);
 * completions by their ref; `logging/setLevel` is fanned out to every upstream that logs, with
 * the most verbose level a live session set (`LogLevels`: each session hears its own). The
 * answer is the upstream's, or an `RpcError` the backend turns into the agent's error response.
 */
import { JSONRPC_CODE, type JsonRpcRequest } from '@burrow/protocol'
import type { Logger } from '../log/logger.js'
import type { AggregatorMetrics } from './aggregator-metrics.js'
import type { ListAggregator } from './list-aggregator.js'
import { listMethod } from './list-methods.js'
import { splitPrefixedName } from './prefixed-name.js'
import type { ResourceRouter } from './resource-router.js'
import type { ResourceSubscriptions } from '../front/resource-subscriptions.js'
import { RpcError } from '../front/rpc-error.js'
import { logLevelRefusal, type LogLevels } from '../front/log-levels.js'
import { withoutTasks } from '../front/task-params.js'
import type { CallOptions } from './upstream-calls.js'
import { recordOf } from './upstream-info.js'
import type { UpstreamLink } from './upstream-link.js'

type Result = Readonly<Record<string, unknown>>

/** How long a `logging/setLevel` may take before the next is sent (the agent's is failed). */
const LEVEL_TIMEOUT_MS = 30_000

/** How long an unsubscribe may take before a subscribe to its URI is sent (it is failed). */
const SUBSCRIPTION_TIMEOUT_MS = 30_000
type Params = Readonly<Record<string, unknown>>

/** What the router works with. */
export interface RequestRouterOptions {
  readonly links: readonly UpstreamLink[]
  readonly lists: ListAggregator
  readonly resources: ResourceRouter
  readonly subscriptions: ResourceSubscriptions
  readonly metrics: AggregatorMetrics
  readonly logger: Logger
  /** The level each session set (the backend filters log lines with it). */
  readonly levels: LogLevels
}

/** Routes agent requests (initialize and ping are the backend's). */
export class RequestRouter {
  readonly #opts: RequestRouterOptions
  readonly #byName: ReadonlyMap<string, UpstreamLink>
  /** Unsubscribes on their way to an upstream, by URI, settled once answered or failed. */
  readonly #unsubscribes = new Map<string, Promise<void>>()
  /** Each upstream's last `logging/setLevel`, settled once it is answered (see `#sendLevel`). */
  readonly #levelSends = new Map<UpstreamLink, Promise<void>>()

  constructor(options: RequestRouterOptions) {
    this.#opts = options
    this.#byName = new Map(options.links.map((link) => [link.name, link]))
  }

  /** The result for `message` from agent session `sessionId`. */
  async route(sessionId: string, message: JsonRpcRequest, call: CallOptions): Promise<Result> {
    // The aggregate offers no tasks: a request asking to become one, or naming one, is handled
    // as a plain one (a task its upstream made would be one no agent could read).
    const params = withoutTasks(message.params ?? {})
    const method = message.method
    if (listMethod(method)) return this.#opts.lists.page(method, params.cursor, call)
    switch (method) {
      case 'tools/call':
        return this.#byPrefix(method, 'tool', params, call)
      case 'prompts/get':
        return this.#byPrefix(method, 'prompt', params, call)
      case 'resources/read':
        return (
          await this.#opts.resources.route(uriOf(params), method, params, call, offersResources)
        ).result
      case 'resources/subscribe':
        return this.#subscribe(sessionId, params, call)
      case 'resources/unsubscribe':
        return this.#unsubscribe(sessionId, params, call)
      case 'completion/complete':
        return this.#complete(params, call)
      case 'logging/setLevel':
        return this.#setLevel(sessionId, params, call)
      default:
        throw new RpcError(
          JSONRPC_CODE.methodNotFound,
          `Method not found: ${method} is not supported by the burrow aggregator`,
        )
    }
  }

  /** Renew what agents set on an upstream that initialized again (log level, subscriptions). */
  renew(link: UpstreamLink): void {
    const log = this.#opts.logger
    const failed = (what: string) => (err: unknown) =>
      log.debug(`upstream "${link.name}": renewing ${what} failed: ${(err as Error).message}`)
    if (this.#opts.levels.serverLevel !== undefined && link.capability('logging')) {
      this.#sendLevel(link, {}).catch(failed('the log level'))
    }
    for (const uri of this.#opts.subscriptions.urisAt(link.name)) {
      link.request('resources/subscribe', { uri }).catch(failed(`the subscription to ${uri}`))
    }
  }

  /** tools/call and prompts/get: strip the prefix and ask its upstream. */
  async #byPrefix(
    method: string,
    kind: string,
    params: Params,
    call: CallOptions,
  ): Promise<Result> {
    const name = params.name
    if (typeof name !== 'string') {
      throw new RpcError(JSONRPC_CODE.invalidParams, `${method} needs a string "name"`)
    }
    const { link, item } = this.#resolve(kind, name)
    return link.request(method, { ...params, name: item }, call)
  }

  /** The upstream a prefixed name belongs to; an unknown prefix is an invalid-params error. */
  #resolve(kind: string, name: string): { link: UpstreamLink; item: string } {
    const names = this.#opts.links.map((link) => link.name)
    const split = splitPrefixedName(name, names)
    const link = split && this.#byName.get(split.upstream)
    if (split && link) return { link, item: split.item }
    this.#opts.metrics.unknownPrefix()
    throw new RpcError(
      JSONRPC_CODE.invalidParams,
      `unknown ${kind} "${name}": ${kind} names here are "<upstream>__<${kind}>" and the ` +
        `upstreams are ${names.map((n) => `"${n}"`).join(', ')}`,
      { upstreams: names },
    )
  }

  async #subscribe(sessionId: string, params: Params, call: CallOptions): Promise<Result> {
    const uri = uriOf(params)
    const subscriptions = this.#opts.subscriptions
    const refused = subscriptions.refusal(uri, sessionId)
    if (refused !== null) throw new RpcError(JSONRPC_CODE.serverError, refused)
    const settled = subscriptions.subscribing(uri, sessionId)
    try {
      // After an unsubscribe of the URI still on its way: the server could apply it after this.
      await this.#unsubscribes.get(uri)
      const known = subscriptions.upstreamOf(uri)
      const link = known === undefined ? undefined : this.#byName.get(known)
      if (link) {
        const result = await link.request('resources/subscribe', params, call)
        subscriptions.add(uri, link.name, sessionId)
        return result
      }
      const routed = await this.#opts.resources.route(
        uri,
        'resources/subscribe',
        params,
        call,
        (l) => Boolean(l.capability('resources')?.subscribe),
      )
      subscriptions.add(uri, routed.link.name, sessionId)
      return routed.result
    } finally {
      // Nobody ended up subscribed, and the last subscriber's unsubscribe was held back.
      const upstream = settled()
      if (upstream !== undefined) this.unsubscribeUpstream(upstream, uri)
    }
  }

  /** Tell `upstream` nobody is subscribed to `uri` any more (a request whose answer is unused). */
  unsubscribeUpstream(upstream: string, uri: string): void {
    const link = this.#byName.get(upstream)
    if (link) this.#sendUnsubscribe(link, { uri }).catch(() => {})
  }

  /**
   * Unsubscribe `link` from `params.uri`; a subscribe to that URI waits until this is answered
   * (or has failed, after `SUBSCRIPTION_TIMEOUT_MS` at most), so that the server cannot apply the
   * two in the other order and drop the new subscriber's subscription.
   */
  #sendUnsubscribe(link: UpstreamLink, params: Params, call?: CallOptions): Promise<Result> {
    const uri = uriOf(params)
    const timeoutMs = Math.min(call?.timeoutMs ?? SUBSCRIPTION_TIMEOUT_MS, SUBSCRIPTION_TIMEOUT_MS)
    const sent = link.request('resources/unsubscribe', params, { ...call, timeoutMs })
    const before = this.#unsubscribes.get(uri)
    const done = sent.then(
      () => undefined,
      () => undefined,
    )
    const settled = before ? Promise.all([before, done]).then(() => undefined) : done
    this.#unsubscribes.set(uri, settled)
    void settled.then(() => {
      if (this.#unsubscribes.get(uri) === settled) this.#unsubscribes.delete(uri)
    })
    return sent
  }

  async #unsubscribe(sessionId: string, params: Params, call: CallOptions): Promise<Result> {
    const uri = uriOf(params)
    const upstream = this.#opts.subscriptions.remove(uri, sessionId)
    // Others are still subscribed, or this session never was: nothing to tell the upstream (an
    // unsubscribe forwarded for a session that never subscribed would end the others').
    if (upstream === null || upstream === undefined) return {}
    const link = this.#byName.get(upstream)
    return link ? this.#sendUnsubscribe(link, params, call) : {}
  }

  /** completion/complete: by prompt name prefix, or by the resource (template) URI. */
  async #complete(params: Params, call: CallOptions): Promise<Result> {
    const ref = recordOf(params.ref)
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const { link, item } = this.#resolve('prompt', ref.name)
      return link.request('completion/complete', { ...params, ref: { ...ref, name: item } }, call)
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const link = await this.#opts.resources.templateOwner(ref.uri, call)
      if (link) return link.request('completion/complete', params, call)
      throw new RpcError(
        JSONRPC_CODE.invalidParams,
        `no upstream lists the resource template ${ref.uri}`,
      )
    }
    throw new RpcError(
      JSONRPC_CODE.invalidParams,
      'completion/complete needs a ref of type "ref/prompt" (with a name) or "ref/resource" (with a uri)',
    )
  }

  /** Session `sessionId` ended: upstreams go back to the level the others set, if it changed. */
  sessionEnded(sessionId: string): void {
    if (!this.#opts.levels.drop(sessionId)) return
    for (const link of this.#opts.links) {
      if (!link.capability('logging')) continue
      this.#sendLevel(link, {}).catch((err: unknown) => {
        this.#opts.logger.debug(
          `upstream "${link.name}": setting the log level failed: ${(err as Error).message}`,
        )
      })
    }
  }

  /** logging/setLevel reaches every available upstream that logs. */
  async #setLevel(sessionId: string, params: Params, call: CallOptions): Promise<Result> {
    const refused = logLevelRefusal(params.level)
    if (refused !== null) throw new RpcError(JSONRPC_CODE.invalidParams, refused)
    this.#opts.levels.set(sessionId, params.level as string)
    const targets = this.#opts.links.filter((link) => link.capability('logging'))
    this.#opts.metrics.fanout('logging/setLevel')
    const outcomes = await Promise.allSettled(
      targets.map((link) => this.#sendLevel(link, params, call)),
    )
    const failures = outcomes.filter((o) => o.status === 'rejected')
    if (targets.length > 0 && failures.length === targets.length) throw failures[0]!.reason
    return {}
  }

  /**
   * Ask `link` for the level live sessions want, read when it is sent, once the level it was
   * sent before is answered: an HTTP upstream may apply two requests in flight at once in either
   * order, and then stay at a level no session wants. Each send gives up after
   * `LEVEL_TIMEOUT_MS` at most, so that a hung one does not hold back the next.
   */
  #sendLevel(link: UpstreamLink, params: Params, call?: CallOptions): Promise<Result> {
    const previous = this.#levelSends.get(link) ?? Promise.resolve()
    const send = async (): Promise<Result> => {
      const level = this.#opts.levels.serverLevel
      if (level === undefined) return {}
      // Bounded also for an agent that waits for ever: the next send waits for this one.
      const timeoutMs = Math.min(call?.timeoutMs ?? LEVEL_TIMEOUT_MS, LEVEL_TIMEOUT_MS)
      const options = { ...call, timeoutMs }
      return link.request('logging/setLevel', { ...params, level }, options)
    }
    const sent = previous.then(send)
    const settled = sent.then(
      () => undefined,
      () => undefined,
    )
    this.#levelSends.set(link, settled)
    void settled.then(() => {
      if (this.#levelSends.get(link) === settled) this.#levelSends.delete(link)
    })
    return sent
  }
}

function uriOf(params: Params): string {
  if (typeof params.uri === 'string') return params.uri
  throw new RpcError(JSONRPC_CODE.invalidParams, 'the request needs a string "uri"')
}

function offersResources(link: UpstreamLink): boolean {
  return link.capability('resources') !== undefined
}
