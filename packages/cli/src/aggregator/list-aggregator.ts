/**
 * `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list` across upstreams.
 * An agent page holds one page of every upstream, fetched in parallel: the first page has every
 * upstream's first page, so an agent that reads only the first page (many do) sees every
 * upstream's items; cursors of the aggregator's own (`aggregate-cursor.ts`) continue only the
 * upstreams that paginate themselves. Tool and prompt names get their upstream's prefix. An
 * upstream that is down, fails its list or does not answer it in time (10 s) is left out rather
 * than failing or holding the whole list. Pages
 * of upstreams that announce `listChanged` are served from the `ListCache`.
 */
import type { Logger } from '../log/logger.js'
import type { AggregatorMetrics } from './aggregator-metrics.js'
import { decodeCursor, encodeCursor, type AggregateCursor } from './aggregate-cursor.js'
import type { ListCache } from './list-cache.js'
import { listMethod, type ListMethod } from './list-methods.js'
import { AGENT_NAME_LIMIT, prefixName } from './prefixed-name.js'
import { recordOf } from './upstream-info.js'
import type { CallOptions } from './upstream-calls.js'
import type { UpstreamLink } from './upstream-link.js'

type Page = Readonly<Record<string, unknown>>

/** Options of `ListAggregator`. */
export interface ListAggregatorOptions {
  /** Upstreams in list order. */
  readonly links: readonly UpstreamLink[]
  readonly cache: ListCache
  readonly metrics: AggregatorMetrics
  readonly logger: Logger
  /** Sees the raw items of every page fetched from an upstream (URIs for resource routing). */
  readonly observe?: (upstream: string, list: ListMethod, items: readonly unknown[]) => void
  /** How long one upstream's page of an agent page may take before it is left out. */
  readonly pageTimeoutMs?: number
}

/** Long tool and prompt names warned about once each, remembered at most (then forgotten). */
export const MAX_WARNED_NAMES = 10_000

/** Default of `ListAggregatorOptions.pageTimeoutMs`. */
export const DEFAULT_PAGE_TIMEOUT_MS = 10_000

/** Most pages read from one upstream by `fetchAll`, against a server whose cursors loop. */
const MAX_PAGES = 1_000

/** Paginated lists over every upstream. */
export class ListAggregator {
  readonly #opts: ListAggregatorOptions
  readonly #names: readonly string[]
  /** Long names already warned about (at most `MAX_WARNED_NAMES`, then warned again). */
  readonly #warned = new Set<string>()

  constructor(options: ListAggregatorOptions) {
    this.#opts = options
    this.#names = options.links.map((link) => link.name)
  }

  /**
   * One agent page of list `method` from `cursor` (the agent's, undefined for the first): one page
   * of every upstream still listing, fetched in parallel, in upstream order.
   */
  async page(method: string, cursor: unknown, call: CallOptions = {}): Promise<Page> {
    const list = listMethod(method)
    if (!list) throw new Error(`${method} is not a list method`)
    const positions: { link: UpstreamLink; cursor: string | undefined }[] =
      cursor === undefined
        ? this.#opts.links.filter((link) => offers(link, list)).map((link) => ({ link, cursor }))
        : decodeCursor(method, cursor, this.#names).flatMap((p) => {
            const link = this.#opts.links.find((l) => l.name === p.upstream)!
            return offers(link, list) ? [{ link, cursor: p.cursor }] : []
          })
    // An upstream that does not answer is left out after a while, as one that fails is: one
    // stuck server must not keep every agent from seeing the others' items.
    const bound = this.#pageTimeoutMs
    const bounded = { ...call, timeoutMs: Math.min(call.timeoutMs ?? bound, bound) }
    const pages = await Promise.all(
      positions.map(({ link, cursor: at }) =>
        this.#fetch(link, list, at, bounded).catch((err: unknown) => {
          if (call.signal?.aborted) throw err
          const reason = err instanceof Error ? err.message : String(err)
          this.#opts.logger.warn(
            `${method} of upstream "${link.name}" failed (${reason}); left out`,
          )
          return undefined
        }),
      ),
    )
    const items: unknown[] = []
    const next: AggregateCursor[] = []
    pages.forEach((page, i) => {
      if (!page) return
      const { link } = positions[i]!
      items.push(...itemsOf(page, list).map((item) => this.#present(link.name, list, item)))
      if (typeof page.nextCursor === 'string' && page.nextCursor !== positions[i]!.cursor) {
        next.push({ upstream: link.name, cursor: page.nextCursor })
      }
    })
    const nextCursor = next.length > 0 ? { nextCursor: encodeCursor(method, next) } : {}
    return { [list.itemsKey]: items, ...nextCursor }
  }

  /**
   * Every item of list `method` at one upstream, as the upstream names them (all its pages). Each
   * page waits at most the page timeout unless `call` sets its own.
   */
  async fetchAll(link: UpstreamLink, method: string, call: CallOptions = {}): Promise<unknown[]> {
    const list = listMethod(method)
    if (!list || !offers(link, list)) return []
    const bounded = { ...call, timeoutMs: call.timeoutMs ?? this.#pageTimeoutMs }
    const items: unknown[] = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let n = 0; n < MAX_PAGES; n += 1) {
      const page = await this.#fetch(link, list, cursor, bounded)
      items.push(...itemsOf(page, list))
      if (typeof page.nextCursor !== 'string' || seen.has(page.nextCursor)) break
      seen.add(page.nextCursor)
      cursor = page.nextCursor
    }
    return items
  }

  get #pageTimeoutMs(): number {
    return this.#opts.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS
  }

  /** One upstream page, from the cache when the upstream announces changes to this list. */
  async #fetch(
    link: UpstreamLink,
    list: ListMethod,
    cursor: string | undefined,
    call: CallOptions,
  ): Promise<Page> {
    const { cache, metrics } = this.#opts
    const cacheable = link.capability(list.capability)?.listChanged === true
    if (cacheable) {
      const hit = cache.get(link.name, list.method, cursor)
      if (hit) {
        metrics.listCacheHit(link.name, list.method)
        return hit
      }
    }
    const epoch = cache.epoch(link.name, list.method)
    const params = cursor === undefined ? undefined : { cursor }
    const page = await link.request(list.method, params, call)
    if (cacheable) cache.set(link.name, list.method, cursor, page, epoch)
    const items = itemsOf(page, list)
    this.#opts.observe?.(link.name, list, items)
    if (list.prefixed) this.#warnLongNames(link.name, list, items)
    return page
  }

  /** An item as agents see it: tools and prompts renamed with the upstream prefix. */
  #present(upstream: string, list: ListMethod, item: unknown): unknown {
    const record = recordOf(item)
    if (!list.prefixed || typeof record?.name !== 'string') return item
    return { ...record, name: prefixName(upstream, record.name) }
  }

  #warnLongNames(upstream: string, list: ListMethod, items: readonly unknown[]): void {
    for (const item of items) {
      const name = recordOf(item)?.name
      if (typeof name !== 'string') continue
      const full = prefixName(upstream, name)
      if (full.length <= AGENT_NAME_LIMIT || this.#warned.has(full)) continue
      // A server that renames its tools on every listing would grow the set without end.
      if (this.#warned.size >= MAX_WARNED_NAMES) this.#warned.clear()
      this.#warned.add(full)
      const kind = list.capability === 'tools' ? 'tool' : 'prompt'
      this.#opts.logger.warn(
        `${kind} name "${full}" is ${full.length} characters long; agents that allow at most ` +
          `${AGENT_NAME_LIMIT} may refuse it (shorten the upstream name "${upstream}" or the ${kind})`,
      )
    }
  }
}

/** True when `link` is ready and offers `list`. */
function offers(link: UpstreamLink, list: ListMethod): boolean {
  return link.capability(list.capability) !== undefined
}

function itemsOf(page: Page, list: ListMethod): unknown[] {
  const items = page[list.itemsKey]
  return Array.isArray(items) ? items : []
}
