/**
 * The web side's `DomainsPort` over the domains feature: views with the records to create, the
 * custom URL, and whether the domain serves under the account's plan now.
 */
import { storableText } from '../store/storable-text.js'
import { domainToUnicode } from 'node:url'
import type { DomainsPort, DomainView } from '../app/domains-port.js'
import type { PlanId } from '../plans.js'
import { PLANS } from '../plans.js'
import {
  domainAllowance,
  type CustomDomain,
  type CustomDomainStore,
} from '../store/custom-domain-store.js'
import { HttpError } from '../http/http-error.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import type { CustomDomains } from './custom-domains.js'

/** DNS checks an account may ask for per minute ("Check now", `POST …/verify`). */
export const CHECKS_PER_MINUTE = 20

/** What `domainsWebPort` builds on. */
export interface DomainsWebParts {
  readonly domains: CustomDomains
  readonly store: CustomDomainStore
  /** The plan in force of an account, or null when it is gone. */
  readonly planOf: (accountId: string) => Promise<PlanId | null>
  /** `https://<domain>[:port]`. */
  readonly urlOf: (domain: string) => string
  /** Where the limit on DNS checks is kept (default: this process's own). */
  readonly limits?: RateLimits
}

/** The port. */
export function domainsWebPort(parts: DomainsWebParts): DomainsPort {
  const { domains, store } = parts
  // Each check sends several DNS queries: an account cannot make burrowd send them in a loop.
  const checks = (parts.limits ?? localRateLimits).limiter('domains.checks', {
    capacity: CHECKS_PER_MINUTE,
    perMs: 60_000,
  })

  /** Views of `rows` (all of one account), with their serving state under its plan. */
  const views = async (accountId: string, rows: readonly CustomDomain[]): Promise<DomainView[]> => {
    const plan = (await parts.planOf(accountId)) ?? 'free'
    const ranks = await store.ranks(accountId)
    const allowance = domainAllowance(plan)
    return Promise.all(
      rows.map(async (d) => {
        const host = await store.tunnelHost(d.tunnelId)
        const rank = ranks.get(d.id)
        const withinPlan = rank !== undefined && rank < allowance
        const serving = d.state === 'verified' && withinPlan
        const problem =
          d.problem ??
          (d.state === 'verified' && !withinPlan
            ? `the ${PLANS[plan].name} plan does not serve this domain; upgrade or remove it`
            : null)
        return {
          domain: d.domain,
          unicode: domainToUnicode(d.domain),
          state: d.state,
          serving,
          url: parts.urlOf(d.domain),
          records: host ? [...domains.records(d, host.subdomain, host.slug)] : [],
          createdAt: d.createdAt,
          checkedAt: d.checkedAt,
          verifiedAt: d.verifiedAt,
          problem,
        }
      }),
    )
  }

  const one = async (accountId: string, tunnelId: string, domain: string) =>
    store.get(accountId, tunnelId, canonical(domain))

  return {
    async list(accountId, tunnelId) {
      return views(accountId, await store.list(accountId, tunnelId))
    },
    async add(accountId, tunnelId, domain) {
      const added = await domains.add(accountId, tunnelId, domain)
      return (await views(accountId, [added]))[0]!
    },
    async verify(accountId, tunnelId, domain) {
      const found = await one(accountId, tunnelId, domain)
      if (found === undefined) return undefined
      const allowed = checks.take(accountId)
      if (!allowed.ok) {
        throw new HttpError(
          429,
          'rate_limited',
          `too many DNS checks: ${CHECKS_PER_MINUTE} a minute per account; try again in ` +
            `${allowed.retryAfterSecs} s (pending domains are also checked every 5 minutes)`,
          { retry_after_secs: allowed.retryAfterSecs },
        )
      }
      const checked = await domains.checkNow(found)
      return (await views(accountId, [checked.domain]))[0]
    },
    async remove(accountId, tunnelId, domain) {
      return domains.remove(accountId, tunnelId, canonical(domain))
    },
    async servingUrls(accountId) {
      const rows = await store.listAccount(accountId)
      const out = new Map<string, string>()
      for (const v of await views(accountId, rows)) {
        const row = rows.find((r) => r.domain === v.domain)
        if (v.serving && row) out.set(row.tunnelId, v.url)
      }
      return out
    },
  }
}

/**
 * A domain from a path or form, lower-case ASCII (IDNs as typed are converted). One that is no
 * host name is looked up as written, U+0000 as U+FFFD (which PostgreSQL stores; no domain holds it).
 */
function canonical(domain: string): string {
  const lower = domain.trim().toLowerCase().replace(/\.$/, '')
  try {
    return new URL(`http://${lower}`).hostname || storableText(lower)
  } catch {
    return storableText(lower)
  }
}
