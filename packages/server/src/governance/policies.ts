/**
 * Tunnels' policies for the edge, the API and the dashboard. The edge reads the compiled
 * governance of a tunnel from a cache (a few seconds, and dropped at once when the policy
 * changes on this node or, through cluster events, on any other); writes are validated strictly
 * and versioned, and apply from the next request.
 */
import type { Logger } from '@burrow/protocol'
import type { ClusterEvents } from '../cluster/cluster-events.js'
import type { PolicyStore } from '../store/policy-store.js'
import { isPolicyProblem, parsePolicy, type PolicyProblem } from './parse-policy.js'
import type { RateLimiter } from '../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import { DEFAULT_POLICY, policyDocument } from './policy.js'
import { NODE_SCAN_MS_PER_MINUTE, ScanBudget } from './scan-budget.js'
import { TunnelGovernance } from './tunnel-governance.js'

/** A policy as the API shows it. */
export interface PolicyView {
  readonly document: Record<string, unknown>
  /** 0 while the tunnel has the default policy. */
  readonly version: number
  readonly updatedAt: string | null
  readonly updatedBy: string | null
}

/**
 * What a write did: the new policy, or why nothing changed (`retryAfterSecs` when too soon,
 * `changedSince` when the policy is no longer at the version the write was made from).
 */
export type PolicyWrite =
  | { readonly ok: true; readonly view: PolicyView }
  | {
      readonly ok: false
      readonly problem: PolicyProblem
      readonly retryAfterSecs?: number
      readonly changedSince?: { readonly version: number }
    }

/** Policy writes one tunnel may make at once, and per minute on average (all nodes together). */
export const POLICY_WRITES_PER_MINUTE = 30

/** Options of `new Policies`. */
export interface PoliciesOptions {
  readonly store: PolicyStore
  readonly events: ClusterEvents
  readonly log: Logger
  /** Where the write limit is kept (default: this process's own). */
  readonly limits?: RateLimits
  /** How long a compiled policy is used before it is read again (default 5 s). */
  readonly ttlMs?: number
  /**
   * How long after a write turned zero-knowledge mode on the tunnel's content is erased once more
   * (default 10 s: a node that missed the change uses its cached policy for up to `ttlMs`, and its
   * history writer writes a second later).
   */
  readonly zeroKnowledgeSweepMs?: number
  readonly now?: () => number
}

interface Cached {
  readonly governance: TunnelGovernance
  readonly at: number
}

/** Most tunnels' governance kept at once. */
const MAX_CACHED = 10_000

/** The policies of every tunnel. */
export class Policies {
  readonly #opts: PoliciesOptions
  readonly #ttl: number
  readonly #now: () => number
  readonly #cache = new Map<string, Cached>()
  readonly #loading = new Map<string, Promise<TunnelGovernance>>()
  /** Writes per tunnel: each is a database transaction and an event to every node. */
  readonly #writes: RateLimiter
  /** Each tunnel's allowance for redaction scans, kept across policy versions and reloads. */
  readonly #budgets = new Map<string, ScanBudget>()
  /** Invalidations of each tunnel so far: a read that saw one of its tunnel caches nothing. */
  readonly #invalidations = new Map<string, number>()
  #epoch = 0
  /** What all tunnels' redaction scans may cost this node together. */
  readonly #nodeBudget: ScanBudget

  constructor(opts: PoliciesOptions) {
    this.#opts = opts
    this.#ttl = opts.ttlMs ?? 5000
    this.#now = opts.now ?? Date.now
    this.#nodeBudget = new ScanBudget({ msPerMinute: NODE_SCAN_MS_PER_MINUTE, now: this.#now })
    this.#writes = (opts.limits ?? localRateLimits).limiter('policy.writes', {
      capacity: POLICY_WRITES_PER_MINUTE,
      perMs: 60_000,
      now: this.#now,
    })
    opts.events.subscribe((event) => {
      if (event.type === 'tunnel') this.invalidate(event.tunnelId)
    })
  }

  /** The compiled governance of `tunnelId` when the cache holds it fresh; else undefined. */
  cachedGovernance(tunnelId: string): TunnelGovernance | undefined {
    const cached = this.#cache.get(tunnelId)
    return cached && this.#now() - cached.at < this.#ttl ? cached.governance : undefined
  }

  /** The compiled governance of `tunnelId` (the default policy when it has none). */
  governance(tunnelId: string): Promise<TunnelGovernance> {
    const cached = this.cachedGovernance(tunnelId)
    if (cached !== undefined) return Promise.resolve(cached)
    const loading = this.#loading.get(tunnelId)
    if (loading) return loading
    const load = this.#load(tunnelId).finally(() => {
      if (this.#loading.get(tunnelId) === load) this.#loading.delete(tunnelId)
    })
    this.#loading.set(tunnelId, load)
    return load
  }

  /** The tunnel's governance now: the cached copy while fresh, else loaded. */
  latest(tunnelId: string): TunnelGovernance | Promise<TunnelGovernance> {
    return this.cachedGovernance(tunnelId) ?? this.governance(tunnelId)
  }

  /** The tunnel's policy as a document, with its version. */
  async read(tunnelId: string): Promise<PolicyView> {
    const stored = await this.#opts.store.get(tunnelId)
    if (!stored) {
      return {
        document: policyDocument(DEFAULT_POLICY),
        version: 0,
        updatedAt: null,
        updatedBy: null,
      }
    }
    return {
      document: policyDocument(this.#parseStored(tunnelId, stored.document)),
      version: stored.version,
      updatedAt: stored.updatedAt,
      updatedBy: stored.updatedBy,
    }
  }

  /**
   * Validate and store `value` as the tunnel's policy; a problem changes nothing. With
   * `expectVersion`, only while the stored policy is at that version (0: the default): a document
   * edited from an older one would silently undo what was changed since.
   */
  async write(
    tunnelId: string,
    value: unknown,
    by: string,
    expectVersion?: number,
  ): Promise<PolicyWrite> {
    // Counted before the document is read: refused documents cost their check too.
    const allowed = this.#writes.take(tunnelId)
    if (!allowed.ok) {
      const wait = allowed.retryAfterSecs
      return {
        ok: false,
        retryAfterSecs: wait,
        problem: {
          field: 'policy',
          message: `this tunnel's policy changed ${POLICY_WRITES_PER_MINUTE} times in the last minute; try again in ${wait} s`,
        },
      }
    }
    const policy = parsePolicy(value)
    if (isPolicyProblem(policy)) return { ok: false, problem: policy }
    const document = policyDocument(policy)
    const at = new Date(this.#now())
    const stored = await this.#opts.store.set(tunnelId, JSON.stringify(document), by, at, {
      eraseContent: policy.zeroKnowledge,
      ...(expectVersion !== undefined ? { expectVersion } : {}),
    })
    if (stored.conflict === true) {
      const now = stored.version
      return {
        ok: false,
        changedSince: { version: now },
        problem: {
          field: 'policy',
          message: `this tunnel's policy changed since version ${expectVersion} (it is at version ${now}): nothing was written; read it again and make your change to it`,
        },
      }
    }
    const { version, erased, eraseFailed } = stored
    if (eraseFailed !== undefined) {
      // The policy is in force; the erasure is pending and the sweep below takes it up again.
      this.#opts.log.warn(
        `governance: erasing tunnel ${tunnelId}'s content: ${eraseFailed.message}`,
      )
    }
    // Answered once the other nodes are told: the next request applies it wherever it lands.
    await this.#opts.events.publish({ type: 'tunnel', tunnelId })
    if (erased) this.#sweepLater(tunnelId)
    return { ok: true, view: { document, version, updatedAt: at.toISOString(), updatedBy: by } }
  }

  /**
   * Erase the tunnel's content once more a little after zero-knowledge mode was turned on: a node
   * that missed the change (a cluster event lost while it reconnected to Redis) keeps content of
   * the calls it records until its cached policy expires.
   */
  #sweepLater(tunnelId: string): void {
    const timer = setTimeout(() => {
      this.#opts.store.eraseContentIfZeroKnowledge(tunnelId).catch((err: Error) => {
        this.#opts.log.warn(`governance: erasing tunnel ${tunnelId}'s content: ${err.message}`)
      })
    }, this.#opts.zeroKnowledgeSweepMs ?? 10_000)
    timer.unref()
  }

  /**
   * Take up the erasures of content that a failure or a restart cut short (one tunnel after
   * another, in the background); resolves when they are done, never rejects.
   */
  async resumeErasures(): Promise<void> {
    const failed = (tunnelId: string) => (err: Error) =>
      this.#opts.log.warn(`governance: erasing tunnel ${tunnelId}'s content: ${err.message}`)
    try {
      for (const tunnelId of await this.#opts.store.pendingErasures()) {
        await this.#opts.store.eraseContentIfZeroKnowledge(tunnelId).catch(failed(tunnelId))
      }
    } catch (err) {
      failed('(any)')(err as Error)
    }
  }

  /** Versions of the tunnel's policy, newest first. */
  versions(tunnelId: string) {
    return this.#opts.store.versions(tunnelId)
  }

  /**
   * Forget what is cached of `tunnelId`, and what a read begun before now would cache: the next
   * request reads the policy again.
   */
  invalidate(tunnelId: string): void {
    this.#cache.delete(tunnelId)
    this.#loading.delete(tunnelId)
    if (this.#invalidations.size >= MAX_CACHED) {
      // Bounded: counts forgotten start a new epoch, which no read under way began in.
      this.#invalidations.clear()
      this.#epoch++
    }
    this.#invalidations.set(tunnelId, (this.#invalidations.get(tunnelId) ?? 0) + 1)
  }

  /** What a read of `tunnelId` compares before caching: its invalidations in this epoch. */
  #generation(tunnelId: string): string {
    return `${this.#epoch}:${this.#invalidations.get(tunnelId) ?? 0}`
  }

  async #load(tunnelId: string): Promise<TunnelGovernance> {
    const generation = this.#generation(tunnelId)
    const stored = await this.#opts.store.get(tunnelId)
    const budget = this.#budget(tunnelId)
    // Read again at its cache time and unchanged (a version is one document): what was compiled
    // is kept, rather than every glob and pattern compiled anew every few seconds.
    const before = this.#cache.get(tunnelId)?.governance
    const governance =
      before !== undefined && before.version === (stored?.version ?? 0)
        ? before
        : this.#compiled(tunnelId, stored, budget)
    // The tunnel's policy changed while this read was under way: what was read may be older than
    // the change, so the copy serves this caller only.
    if (generation !== this.#generation(tunnelId)) return governance
    if (this.#cache.size >= MAX_CACHED) {
      const oldest = this.#cache.keys().next().value
      if (oldest !== undefined) this.#cache.delete(oldest)
    }
    this.#cache.set(tunnelId, { governance, at: this.#now() })
    return governance
  }

  #compiled(
    tunnelId: string,
    stored: Awaited<ReturnType<PolicyStore['get']>>,
    budget: ScanBudget,
  ): TunnelGovernance {
    return stored
      ? new TunnelGovernance(
          tunnelId,
          stored.version,
          this.#parseStored(tunnelId, stored.document),
          budget,
        )
      : new TunnelGovernance(tunnelId, 0, DEFAULT_POLICY, budget)
  }

  /** The tunnel's scan budget (the least recently used is forgotten past `MAX_CACHED`). */
  #budget(tunnelId: string): ScanBudget {
    let budget = this.#budgets.get(tunnelId)
    if (budget === undefined) {
      if (this.#budgets.size >= MAX_CACHED) {
        const oldest = this.#budgets.keys().next().value
        if (oldest !== undefined) this.#budgets.delete(oldest)
      }
      budget = new ScanBudget({ node: this.#nodeBudget, now: this.#now })
    } else {
      this.#budgets.delete(tunnelId)
    }
    this.#budgets.set(tunnelId, budget)
    return budget
  }

  /**
   * A stored document: written by `write`, so valid when it was written (rules added since, such
   * as the size of the patterns' joined program, are not asked of it); a corrupt one falls back
   * to the default.
   */
  #parseStored(tunnelId: string, document: string) {
    try {
      const policy = parsePolicy(JSON.parse(document), { stored: true })
      if (!isPolicyProblem(policy)) return policy
      this.#opts.log.error(
        `governance: tunnel ${tunnelId}'s stored policy is invalid (${policy.field}: ${policy.message}); using the default`,
      )
    } catch (err) {
      this.#opts.log.error(
        `governance: tunnel ${tunnelId}'s stored policy is not JSON: ${(err as Error).message}`,
      )
    }
    return DEFAULT_POLICY
  }
}
