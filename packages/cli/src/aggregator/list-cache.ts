/**
 * Snapshots of upstream `*\/list` pages, kept per upstream, list and upstream cursor, so agents
 * listing again (every session lists at start) do not reach the upstream. A snapshot lives until
 * the upstream says the list changed, or goes away or comes back. Each (upstream, list) has an
 * epoch that invalidation bumps: a page fetched before an invalidation is not stored after it.
 * At most `maxPages` pages of one list are kept: an upstream whose cursors never end (a new one on
 * every page) would otherwise grow the cache for as long as an agent follows them. Only pages of
 * cursors the upstream itself issued (the first page's `nextCursor`, then each next one's) are
 * kept: the aggregator's cursors are the agent's to write, and many servers (the SDKs' high-level
 * ones) answer any cursor with their whole list, so pages under an agent's cursors of 3 MiB each
 * filled the cache to its bound, gigabytes of keys (found by a hostile review).
 */

type Page = Readonly<Record<string, unknown>>

/** Default bound of pages kept per upstream and list. */
export const DEFAULT_MAX_CACHED_PAGES = 1_000

/** Cached list pages of every upstream. */
export class ListCache {
  readonly #pages = new Map<string, Map<string, Page>>()
  readonly #epochs = new Map<string, number>()
  /** The cursors each list's upstream issued, from its first page on, since its invalidation. */
  readonly #issued = new Map<string, Set<string>>()
  readonly #maxPages: number

  constructor(maxPages: number = DEFAULT_MAX_CACHED_PAGES) {
    this.#maxPages = maxPages
  }

  /** The current epoch of `method` at `upstream`; pass it back to `set`. */
  epoch(upstream: string, method: string): number {
    return this.#epochs.get(key(upstream, method)) ?? 0
  }

  /** The cached page for `cursor` (undefined: the first page). */
  get(upstream: string, method: string, cursor: string | undefined): Page | undefined {
    return this.#pages.get(key(upstream, method))?.get(cursor ?? '')
  }

  /**
   * Store a page fetched during `epoch`; ignored if the list was invalidated since, if `cursor`
   * is not one the upstream issued (in a page stored before), or if the list already holds
   * `maxPages` other pages (later pages are then fetched each time).
   */
  set(upstream: string, method: string, cursor: string | undefined, page: Page, epoch: number) {
    if (epoch !== this.epoch(upstream, method)) return
    const k = key(upstream, method)
    const issued = this.#issued.get(k) ?? new Set<string>()
    if (cursor !== undefined && !issued.has(cursor)) return
    const pages = this.#pages.get(k) ?? new Map<string, Page>()
    if (pages.size >= this.#maxPages && !pages.has(cursor ?? '')) return
    this.#pages.set(k, pages)
    this.#issued.set(k, issued)
    pages.set(cursor ?? '', page)
    const next = page.nextCursor
    if (typeof next === 'string' && issued.size < this.#maxPages) issued.add(next)
  }

  /** Forget the pages of `methods` at `upstream`. */
  invalidate(upstream: string, methods: readonly string[]): void {
    for (const method of methods) {
      const k = key(upstream, method)
      this.#pages.delete(k)
      this.#issued.delete(k)
      this.#epochs.set(k, this.epoch(upstream, method) + 1)
    }
  }
}

function key(upstream: string, method: string): string {
  return `${upstream}\n${method}`
}
