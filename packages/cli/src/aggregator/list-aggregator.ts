/**
 * `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list` across upstreams.
 * The upstreams are walked in order, one upstream page per agent page, under cursors of the
 * aggregator's own (`aggregate-cursor.ts`); tool and prompt names get their upstream's prefix. An
 * upstream that is down, or fails its list, is left out rather than failing the whole list. Pages
 * of upstreams that announce `listChanged` are served from the `ListCache`.
 */
import type { Logger } from '../log/logger.js'
import type { AggregatorMetrics } from './aggregator-metrics.js'
import { decodeCursor, encodeCursor, type AggregateCursor } from './aggregate-cursor.js'
import type { ListCache } from './list-cache.js'
import { LIST_METHODS, type ListMethod } from './list-methods.js'
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
}

/** Most pages read from one upstream by `fetchAll`, against a server whose cursors loop. */
const MAX_PAGES = 1_000

/** Paginated lists over every upstream. */
export class ListAggregator {
  readonly #opts: ListAggregatorOptions
  readonly #names: readonly string[]
  /** Long names already warned about. */
  readonly #warned = new Set<string>()

  constructor(options: ListAggregatorOptions) {
    this.#opts = options
    this.#names = options.links.map((link) => link.name)
  }

  /** One agent page of list `method` from `cursor` (the agent's, undefined for the first). */
  async page(method: string, cursor: unknown, call: CallOptions = {}): Promise<Page> {
    const list = LIST_METHODS[method]
    if (!list) throw new Error(`${method} is not a list method`)
    const links = this.#opts.links
    let index = 0
    let upstreamCursor: string | undefined
    if (cursor !== undefined) {
      const position = decodeCursor(method, cursor, this.#names)
      index = this.#names.indexOf(position.upstream)
      upstreamCursor = position.cursor
    }
    for (; index < links.length; index += 1, upstreamCursor = undefined) {
      const link = links[index]!
      if (!offers(link, list)) continue
      let page: Page
      try {
        page = await this.#fetch(link, list, upstreamCursor, call)
      } catch (err) {
        if (call.signal?.aborted) throw err
        const reason = err instanceof Error ? err.message : String(err)
        this.#opts.logger.warn(`${method} of upstream "${link.name}" failed (${reason}); left out`)
        continue
      }
      const items = itemsOf(page, list).map((item) => this.#present(link.name, list, item))
      const next: AggregateCursor | undefined =
        typeof page.nextCursor === 'string'
          ? { upstream: link.name, cursor: page.nextCursor }
          : this.#nextUpstream(list, index + 1)
      const nextCursor = next ? { nextCursor: encodeCursor(method, next) } : {}
      return { [list.itemsKey]: items, ...nextCursor }
    }
    return { [list.itemsKey]: [] }
  }

  /** Every item of list `method` at one upstream, as the upstream names them (all its pages). */
  async fetchAll(link: UpstreamLink, method: string, call: CallOptions = {}): Promise<unknown[]> {
    const list = LIST_METHODS[method]
    if (!list || !offers(link, list)) return []
    const items: unknown[] = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let n = 0; n < MAX_PAGES; n += 1) {
      const page = await this.#fetch(link, list, cursor, call)
      items.push(...itemsOf(page, list))
      if (typeof page.nextCursor !== 'string' || seen.has(page.nextCursor)) break
      seen.add(page.nextCursor)
      cursor = page.nextCursor
    }
    return items
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

  #nextUpstream(list: ListMethod, from: number): AggregateCursor | undefined {
    const next = this.#opts.links.slice(from).find((link) => offers(link, list))
    return next && { upstream: next.name, cursor: undefined }
  }

  #warnLongNames(upstream: string, list: ListMethod, items: readonly unknown[]): void {
    for (const item of items) {
      const name = recordOf(item)?.name
      if (typeof name !== 'string') continue
      const full = prefixName(upstream, name)
      if (full.length <= AGENT_NAME_LIMIT || this.#warned.has(full)) continue
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
