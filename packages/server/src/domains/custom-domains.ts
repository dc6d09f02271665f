/**
 * Custom domains as a feature: adding one to a tunnel (the name checked by `checkCustomDomain`,
 * the plan's allowance by the store), checking its DNS now or on the periodic re-check (with an
 * injectable clock), answering which tunnel a public Host names (cached briefly, like tunnel
 * hostnames), and whether a domain may have a certificate and be served under its account's plan
 * now. The HTTP sides are `custom-domain-routing.ts` (the edge) and `tls-ask-route.ts` (Caddy).
 */
import { tunnelHostLabel, type Logger } from '@burrow/protocol'
import type { PlanId } from '../plans.js'
import {
  domainAllowance,
  type CustomDomain,
  type CustomDomainState,
  type CustomDomainStore,
  type DomainRoute,
} from '../store/custom-domain-store.js'
import { StoreError } from '../store/store-error.js'
import { HttpError } from '../http/http-error.js'
import type { RateLimiter } from '../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import { checkCustomDomain } from './custom-domain-name.js'
import type { DnsFindings, DnsVerifier } from './dns-verifier.js'

/** How often a pending domain is checked again. */
export const PENDING_RECHECK_MS = 5 * 60_000
/** How often a verified domain is checked again. */
export const VERIFIED_RECHECK_MS = 60 * 60_000
/** How long a verified domain's records may be missing before it returns to pending. */
export const LAPSE_AFTER_MS = 24 * 60 * 60_000
/** A failed scheduled check is retried a minute later, doubling per failure, up to its interval. */
export const RETRY_FIRST_MS = 60_000
/** Domains checked per round of the periodic re-check. */
const RECHECK_BATCH = 50
/** Domains checked at once in a round, and of them one account's at most. */
export const RECHECK_CONCURRENCY = 8
export const RECHECK_PER_ACCOUNT = 2

/**
 * Domains one account may add a day (all nodes together, refilled evenly). Each new name
 * verified is a new certificate order at the CA, whose limits are the whole service's (Let's
 * Encrypt: 300 new orders per ACME account every 3 hours): unbounded, one paying account adding,
 * verifying and removing names of its own zone in a loop could leave every other customer's new
 * domain without a certificate.
 */
export const DOMAINS_ADDED_PER_DAY = 10

const HIT_TTL_MS = 5_000
const MISS_TTL_MS = 2_000
const MAX_ENTRIES = 10_000

/** A verified domain's route, with its tunnel's `<sub>--<slug>` label. */
export interface ResolvedDomain extends DomainRoute {
  readonly label: string
}

/** Options of `new CustomDomains`. */
export interface CustomDomainsOptions {
  readonly store: CustomDomainStore
  readonly verifier: DnsVerifier
  /** The service's zone (`BURROW_ZONE`): the parent of tunnel hosts. */
  readonly zone: string
  /** The service's own host (`BURROW_SERVICE_HOST`); the zone when absent. */
  readonly serviceHost?: string
  /** The plan in force of the tunnel with host label `label`, or null when there is none. */
  readonly planOf: (label: string) => Promise<PlanId | null>
  readonly log: Logger
  readonly now?: () => Date
  /** Told when a domain changes here, so other nodes forget their cached routes too. */
  readonly onChange?: () => void
  /** Where the limit on additions is kept (default: this process's own). */
  readonly limits?: RateLimits
}

/** A domain with what its last check found. */
export interface CheckedDomain {
  readonly domain: CustomDomain
  readonly findings: DnsFindings | null
}

/** Custom domains: adding, checking, routing and the TLS question. */
export class CustomDomains {
  readonly #opts: CustomDomainsOptions
  readonly #now: () => Date
  readonly #cache = new Map<string, { route: ResolvedDomain | 'pending' | null; expires: number }>()
  #timer: NodeJS.Timeout | null = null
  /** Bumped by `invalidate`: a route read begun before it does not fill the cache. */
  #generation = 0
  /** Rounds `start` began that are still under way. */
  readonly #rounds = new Set<Promise<void>>()
  /** A round's query for due domains is under way. */
  #fetching = false
  /** Domains this node checks or holds in line now, by id. */
  readonly #claimed = new Set<string>()
  /** Due domains waiting for a place, in the order they became due. */
  readonly #line: { readonly d: CustomDomain; readonly done: () => void }[] = []
  /** Checks under way, in all and by account. */
  #checking = 0
  readonly #busy = new Map<string, number>()
  readonly #additions: RateLimiter

  constructor(opts: CustomDomainsOptions) {
    this.#opts = opts
    this.#now = opts.now ?? (() => new Date())
    this.#additions = (opts.limits ?? localRateLimits).limiter('domains.additions', {
      capacity: DOMAINS_ADDED_PER_DAY,
      perMs: 24 * 60 * 60_000,
      now: () => this.#now().getTime(),
    })
  }

  /** The DNS records a domain needs, for pages and the API. */
  records(d: CustomDomain, subdomain: string, slug: string) {
    return [
      { type: 'TXT', name: `_burrow-challenge.${d.domain}`, value: d.token },
      {
        type: 'CNAME',
        name: d.domain,
        value: `${tunnelHostLabel(subdomain, slug)}.${this.#opts.zone}`,
      },
    ] as const
  }

  /**
   * Add `input` (as the user typed it) to the account's tunnel. Throws StoreError `invalid` with
   * the rule it breaks, or what `CustomDomainStore#add` throws.
   */
  async add(accountId: string, tunnelId: string, input: unknown): Promise<CustomDomain> {
    if (typeof input !== 'string' || input.length > 1024) {
      throw new StoreError('invalid', '"domain" must be a domain name such as mcp.example.com')
    }
    const check = checkCustomDomain(input, this.#opts.zone, this.#opts.serviceHost)
    if (!check.ok) throw new StoreError('invalid', check.reason)
    // Spent before the add (adds at once must not all pass one check), given back when it fails.
    const allowed = this.#additions.take(accountId)
    if (!allowed.ok) {
      throw new HttpError(
        429,
        'rate_limited',
        `this account added ${DOMAINS_ADDED_PER_DAY} domains in the last day; ` +
          `try again in ${Math.ceil(allowed.retryAfterSecs / 60)} minutes`,
        { retry_after: allowed.retryAfterSecs },
      )
    }
    let added: CustomDomain
    try {
      added = await this.#opts.store.add(accountId, tunnelId, check.domain)
    } catch (error) {
      this.#additions.giveBack(accountId)
      throw error
    }
    this.#changed()
    return added
  }

  /** Remove a domain: it stops routing and gets no certificate. False when there is none. */
  async remove(accountId: string, tunnelId: string, domain: string): Promise<boolean> {
    const removed = await this.#opts.store.remove(accountId, tunnelId, domain.toLowerCase())
    // Told only when something went: every node forgets its routes and checks every open stream
    // again, which a repeated removal of a name never added made them do each time.
    if (removed) this.#changed()
    return removed
  }

  /**
   * Check `d` now (the API's and the dashboard's "verify") and return it as stored after: with
   * this check's result, or with that of a check begun after this one and ended before it
   * (then `findings` is null: what this check found is older than what the owner is shown).
   */
  async checkNow(d: CustomDomain): Promise<CheckedDomain> {
    const check = await this.#opts.store.beginCheck(d.id)
    if (check === undefined) return { domain: d, findings: null }
    return this.#check(d, check)
  }

  /**
   * Check `d`'s DNS as check number `check`; its result is stored unless a check begun later
   * stored its own first (before, a scheduled check could write its older answer over the
   * owner's "Check now": found by a review).
   */
  async #check(d: CustomDomain, check: number): Promise<CheckedDomain> {
    const host = await this.#opts.store.tunnelHost(d.tunnelId)
    if (host === undefined) return { domain: d, findings: null }
    const label = tunnelHostLabel(host.subdomain, host.slug)
    const findings = await this.#opts.verifier.verify(d.domain, d.token, {
      hosts: [`${label}.${this.#opts.zone}`, this.#opts.zone],
    })
    const ok = findings.txtOk && findings.targetOk
    const problem = findings.problems.join('; ')
    // Lookups the resolver did not answer prove no records missing: the failure is noted, and
    // a verified domain's day before it lapses neither starts nor ends on it.
    const recorded = await this.#opts.store.recordCheck(
      d.id,
      ok
        ? { kind: 'verified' }
        : findings.unanswered
          ? { kind: 'unanswered', problem }
          : { kind: 'failed', problem, lapseAfterMs: LAPSE_AFTER_MS },
      this.#now(),
      check,
    )
    if (recorded === undefined) return { domain: d, findings }
    if (recorded.changed) {
      this.#changed()
      this.#opts.log.info(`custom domain ${d.domain} is now ${recorded.domain.state}`)
    }
    return { domain: recorded.domain, findings: recorded.stored ? findings : null }
  }

  /**
   * One round of the periodic re-check: the domains due at the clock's now (pending ones every
   * 5 minutes, verified ones every hour), at most 50, longest-waiting first, and none this node
   * is checking or holds in line already. They share this node's places with the rounds still
   * under way: `RECHECK_CONCURRENCY` checks at once, at most `RECHECK_PER_ACCOUNT` of one
   * account's, so a domain whose nameservers drop queries holds its own place for the resolver's
   * timeout, not a round. A domain another node checked since it was found due is skipped.
   * Resolves when this round's domains are checked; returns how many were found due.
   */
  async recheck(): Promise<number> {
    const checked = await this.#lineUpDue()
    await Promise.all(checked)
    return checked.length
  }

  /** Put the domains due now in line (see `recheck`); each promise resolves once it is checked. */
  async #lineUpDue(): Promise<Promise<void>[]> {
    const claimed = this.#claimed
    const due = (
      await this.#opts.store.due(
        this.#now(),
        PENDING_RECHECK_MS,
        VERIFIED_RECHECK_MS,
        RECHECK_BATCH + claimed.size,
      )
    )
      .filter((d) => !claimed.has(d.id))
      .slice(0, RECHECK_BATCH)
    const checked = due.map(
      (d) =>
        new Promise<void>((done) => {
          claimed.add(d.id)
          this.#line.push({ d, done })
        }),
    )
    this.#startChecks()
    return checked
  }

  /** Start the checks in line that have a place: one free, and their account below its share. */
  #startChecks(): void {
    while (this.#checking < RECHECK_CONCURRENCY) {
      const i = this.#line.findIndex(
        ({ d }) => (this.#busy.get(d.accountId) ?? 0) < RECHECK_PER_ACCOUNT,
      )
      if (i === -1) return
      const [{ d, done }] = this.#line.splice(i, 1) as [{ d: CustomDomain; done: () => void }]
      this.#checking++
      this.#busy.set(d.accountId, (this.#busy.get(d.accountId) ?? 0) + 1)
      void this.#recheckOne(d)
        .catch((error: Error) =>
          this.#opts.log.warn(`custom domain ${d.domain}: check failed: ${error.message}`),
        )
        .finally(() => {
          this.#checking--
          const left = (this.#busy.get(d.accountId) ?? 1) - 1
          if (left > 0) this.#busy.set(d.accountId, left)
          else this.#busy.delete(d.accountId)
          this.#claimed.delete(d.id)
          done()
          this.#startChecks()
        })
    }
  }

  /**
   * Re-check `d` if no other node took it since it was found due: with several nodes, each found
   * the same domains due and checked them all (as many DNS queries as nodes, and their results
   * written over one another). A claimed check that fails before storing its result gives the
   * domain back, due again after `retryDelay`: before, the claim had moved its last check to
   * now, and it waited a whole interval (an hour when verified) as if checked.
   */
  async #recheckOne(d: CustomDomain): Promise<void> {
    const claim = await this.#opts.store.claimCheck(d, this.#now())
    if (claim === null) return
    try {
      await this.#check(d, claim.check)
    } catch (error) {
      const retry = await this.#opts.store
        .releaseClaim(d.id, claim, this.#now(), retryDelay)
        .catch(() => null)
      const again = retry === null ? '' : `; checked again from ${retry.toISOString()}`
      this.#opts.log.warn(
        `custom domain ${d.domain}: check failed: ${(error as Error).message}${again}`,
      )
    }
  }

  /**
   * Run `recheck` every `everyMs` until `stop`. A round begins on every tick unless the last
   * one's query for due domains is still unanswered: one still checking another account's
   * domains does not hold it back (before, no round began while one was under way, and an
   * account's domains whose nameservers drop queries, two at a time for some 35 s each, held
   * every other account's checks for minutes).
   */
  start(everyMs: number): void {
    this.#timer = setInterval(() => {
      if (this.#fetching) return
      this.#fetching = true
      const round: Promise<void> = this.#lineUpDue()
        .finally(() => {
          this.#fetching = false
        })
        .then((checked) => Promise.all(checked))
        .then(() => undefined)
        .catch((err: Error) => this.#opts.log.warn(`custom domain re-check failed: ${err.message}`))
        .finally(() => this.#rounds.delete(round))
      this.#rounds.add(round)
    }, everyMs)
    this.#timer.unref()
  }

  /** Stop the periodic re-check and wait for the rounds under way. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    // Checks not begun are dropped (due again at the next start): else stopping waited for
    // every domain still in line, several rounds' worth, behind slow nameservers.
    for (const { d, done } of this.#line.splice(0)) {
      this.#claimed.delete(d.id)
      done()
    }
    await Promise.all([...this.#rounds])
  }

  /**
   * Whether `host` could be a custom domain at all: not the service's zone or under it, not its
   * host, not an address, and a dotted name. Anything else is never looked up.
   */
  candidate(host: string): boolean {
    const zone = this.#opts.zone
    if (host === zone || host.endsWith(`.${zone}`) || host === this.#opts.serviceHost) return false
    if (!host.includes('.') || host.length > 253) return false
    return !/^[\d.]+$/.test(host) && !host.startsWith('[')
  }

  /** The verified domain `host` names, `pending` when it is only added, or null. Cached briefly. */
  async route(host: string): Promise<ResolvedDomain | 'pending' | null> {
    const now = Date.now()
    const cached = this.#cache.get(host)
    if (cached && cached.expires > now) return cached.route
    const generation = this.#generation
    const found = await this.#opts.store.route(host)
    const route =
      found === undefined
        ? null
        : found === 'pending'
          ? 'pending'
          : { ...found, label: tunnelHostLabel(found.subdomain, found.slug) }
    if (generation !== this.#generation) return route
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear()
    this.#cache.set(host, { route, expires: now + (route ? HIT_TTL_MS : MISS_TTL_MS) })
    return route
  }

  /** Whether the plan `plan` lets the account serve `route` (its allowance counts domains by age). */
  allowed(route: ResolvedDomain, plan: PlanId): boolean {
    return route.rank < domainAllowance(plan)
  }

  /**
   * Caddy's on-demand TLS question: yes only for a verified domain whose account's plan allows
   * it now.
   */
  async mayIssue(domain: string): Promise<boolean> {
    const host = domain.trim().toLowerCase().replace(/\.$/, '')
    if (!this.candidate(host)) return false
    const route = await this.route(host)
    if (route === null || route === 'pending') return false
    const plan = await this.#opts.planOf(route.label)
    return plan !== null && this.allowed(route, plan)
  }

  /** A domain changed here: forget cached routes, here and (through `onChange`) on every node. */
  #changed(): void {
    this.invalidate()
    this.#opts.onChange?.()
  }

  /** Forget cached routes (after a domain changes, or a plan does). */
  invalidate(): void {
    this.#generation++
    this.#cache.clear()
  }
}

/** The wait before a domain in `state` is checked again after `failures` earlier failures. */
function retryDelay(failures: number, state: CustomDomainState): number {
  const interval = state === 'verified' ? VERIFIED_RECHECK_MS : PENDING_RECHECK_MS
  return Math.min(RETRY_FIRST_MS * 2 ** Math.min(failures, 16), interval)
}
