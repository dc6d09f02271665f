/**
 * Which upstream serves a resource URI. Resource URIs are not prefixed (they are the servers'
 * own, and agents quote them back verbatim), so the router learns owners from `resources/list`
 * pages and matches URI templates from `resources/templates/list` (read from every upstream at
 * once, each page within the list timeout: a stuck upstream holds up only URIs that no upstream
 * before it matches, and those for one timeout).
 * A URI nobody listed is tried on each available upstream that offers resources, in order, and
 * the first that serves it owns it.
 * What was learnt about an upstream is forgotten when its resource lists change or it initializes
 * again, but kept while it is down, so requests for its URIs fail with its own unavailability.
 */
import type { ListAggregator } from './list-aggregator.js'
import type { ListMethod } from './list-methods.js'
import { RpcError } from '../front/rpc-error.js'
import type { CallOptions } from './upstream-calls.js'
import { recordOf } from './upstream-info.js'
import type { UpstreamLink } from './upstream-link.js'
import { uriTemplatePattern, type UriTemplatePattern } from './uri-template.js'

interface Template {
  readonly template: string
  readonly pattern: UriTemplatePattern
}

/**
 * Characters of URIs nobody listed whose upstream is remembered: before, every URI an agent read
 * was kept, so 1,000 reads of 4 MiB URIs a server answered held 4 GiB (found by a hostile review).
 */
export const MAX_LEARNT_CHARS = 1024 * 1024

/**
 * What one remembered URI costs of `MAX_LEARNT_CHARS` besides its characters (its map entry and
 * string header): without it, a million one-character URIs fitted the bound.
 */
export const LEARNT_ENTRY_CHARS = 64

/** MCP's error code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002

/** Finds the upstream of a resource URI. */
export class ResourceRouter {
  readonly #links: readonly UpstreamLink[]
  readonly #lists: () => ListAggregator
  /** URI → name of the upstream that listed it first. */
  readonly #owners = new Map<string, string>()
  /** URI nobody listed → name of the upstream that served it, oldest first. */
  readonly #learnt = new Map<string, string>()
  #learntChars = 0
  readonly #templates = new Map<string, Template[]>()
  /** Upstreams whose whole template list has been read since they were last forgotten. */
  readonly #templatesRead = new Set<string>()

  /** `lists` is a thunk: the list aggregator reports its pages here, so it is built after. */
  constructor(links: readonly UpstreamLink[], lists: () => ListAggregator) {
    this.#links = links
    this.#lists = lists
  }

  /** Learn from a list page an upstream returned. */
  observe(upstream: string, list: ListMethod, items: readonly unknown[]): void {
    for (const item of items) {
      const record = recordOf(item)
      if (list.method === 'resources/list' && typeof record?.uri === 'string') {
        if (!this.#owners.has(record.uri)) this.#owners.set(record.uri, upstream)
      }
      if (list.method === 'resources/templates/list' && typeof record?.uriTemplate === 'string') {
        this.#addTemplate(upstream, record.uriTemplate)
      }
    }
  }

  /** Forget what `upstream` listed (its lists changed, or it started a new session). */
  forget(upstream: string): void {
    for (const [uri, owner] of this.#owners) if (owner === upstream) this.#owners.delete(uri)
    for (const [uri, owner] of this.#learnt) if (owner === upstream) this.#forgetLearnt(uri)
    this.#templates.delete(upstream)
    this.#templatesRead.delete(upstream)
  }

  /**
   * Send a request about `uri` to its upstream; when none is known, to each candidate in turn
   * (`capable` picks them among the available upstreams). Returns the result and who served it.
   */
  async route(
    uri: string,
    method: string,
    params: Readonly<Record<string, unknown>>,
    call: CallOptions,
    capable: (link: UpstreamLink) => boolean,
  ): Promise<{ link: UpstreamLink; result: Readonly<Record<string, unknown>> }> {
    const owner = await this.ownerOf(uri, call)
    if (owner) return { link: owner, result: await owner.request(method, params, call) }
    const candidates = this.#links.filter((link) => link.ready && capable(link))
    let lastError: unknown
    for (const link of candidates) {
      try {
        const result = await link.request(method, params, call)
        this.#learn(uri, link.name)
        return { link, result }
      } catch (err) {
        if (call.signal?.aborted) throw err
        lastError = err
      }
    }
    throw this.#notFound(uri, candidates, lastError)
  }

  /** The upstream known to own `uri` (listed it, or one of its templates matches it). */
  async ownerOf(uri: string, call: CallOptions = {}): Promise<UpstreamLink | undefined> {
    const listed = this.#owners.get(uri) ?? this.#learnt.get(uri)
    if (listed !== undefined) return this.#link(listed)
    return this.#firstMatching(this.#readAllTemplates(call), (t) => t.pattern.test(uri))
  }

  /** The upstream that lists `template` as its own, else the owner of it as a URI. */
  async templateOwner(template: string, call: CallOptions = {}): Promise<UpstreamLink | undefined> {
    const reads = this.#readAllTemplates(call)
    const owner = await this.#firstMatching(reads, (t) => t.template === template)
    if (owner) return owner
    const listed = this.#owners.get(template) ?? this.#learnt.get(template)
    if (listed !== undefined) return this.#link(listed)
    return this.#firstMatching(reads, (t) => t.pattern.test(template))
  }

  /**
   * Start reading every upstream's templates at once: one that does not answer delays none of
   * the others' reads, and only the decisions that must wait for it (`#firstMatching`).
   */
  #readAllTemplates(call: CallOptions): Promise<void>[] {
    const reads = this.#links.map((link) => this.#readTemplates(link, call))
    // Awaited in order below, or not at all once an earlier upstream matched.
    for (const read of reads) read.catch(() => {})
    return reads
  }

  /**
   * The first upstream, in order, with a template that passes `test`, each judged once its own
   * read (of `reads`, one per upstream) is done: a later upstream that does not answer holds up
   * nobody's URIs but its own and those nobody matched. Templates learnt before an upstream went
   * down still route its URIs (to its error).
   */
  async #firstMatching(
    reads: readonly Promise<void>[],
    test: (t: Template) => boolean,
  ): Promise<UpstreamLink | undefined> {
    for (const [n, link] of this.#links.entries()) {
      await reads[n]
      if (this.#templates.get(link.name)?.some(test)) return link
    }
    return undefined
  }

  async #readTemplates(link: UpstreamLink, call: CallOptions): Promise<void> {
    if (this.#templatesRead.has(link.name) || !link.capability('resources')) return
    try {
      await this.#lists().fetchAll(link, 'resources/templates/list', call)
      this.#templatesRead.add(link.name)
    } catch (err) {
      if (call.signal?.aborted) throw err
      // An upstream without templates (or failing to list them) just matches nothing.
    }
  }

  #addTemplate(upstream: string, template: string): void {
    let templates = this.#templates.get(upstream)
    if (!templates) this.#templates.set(upstream, (templates = []))
    if (templates.some((t) => t.template === template)) return
    templates.push({ template, pattern: uriTemplatePattern(template) })
  }

  /**
   * Remember who served `uri`, an agent's, within `MAX_LEARNT_CHARS` (the oldest go first): the
   * URIs are the agent's to choose, up to the edge's 4 MiB each.
   */
  #learn(uri: string, upstream: string): void {
    if (uri.length + LEARNT_ENTRY_CHARS > MAX_LEARNT_CHARS) return
    this.#forgetLearnt(uri)
    this.#learnt.set(uri, upstream)
    this.#learntChars += uri.length + LEARNT_ENTRY_CHARS
    for (const oldest of this.#learnt.keys()) {
      if (this.#learntChars <= MAX_LEARNT_CHARS) break
      this.#forgetLearnt(oldest)
    }
  }

  #forgetLearnt(uri: string): void {
    if (this.#learnt.delete(uri)) this.#learntChars -= uri.length + LEARNT_ENTRY_CHARS
  }

  #link(name: string): UpstreamLink | undefined {
    return this.#links.find((link) => link.name === name)
  }

  #notFound(uri: string, tried: readonly UpstreamLink[], lastError: unknown): RpcError {
    const down = this.#links.filter((link) => !link.ready).map((link) => `"${link.name}"`)
    const triedNames = tried.map((link) => `"${link.name}"`).join(', ') || 'none'
    const unavailable = down.length > 0 ? `; unavailable now: ${down.join(', ')}` : ''
    const last = lastError instanceof Error ? ` (last error: ${lastError.message})` : ''
    return new RpcError(
      RESOURCE_NOT_FOUND,
      `resource ${uri} is not served by any upstream (tried ${triedNames}${unavailable})${last}`,
      { uri },
    )
  }
}
