/**
 * Builds the web side's `WebServices` from burrowd's parts: the store (accounts, sessions,
 * tokens, tunnels), the tunnel registry and lookup cache (live state), and the billing, meters
 * and webhook modules, which are passed in as ports.
 */
import type { Store } from '../store/store.js'
import { StoreError } from '../store/store-error.js'
import type { TunnelStatus } from '../store/store.js'
import type { MetersView } from './billing-view.js'
import type { LiveUsagePort } from './live-meters.js'
import type { GovernancePort } from './governance-port.js'
import type { DomainsPort } from './domains-port.js'
import type { AccessPort } from './access-port.js'
import { AccessWriteLimits } from './access-write-limits.js'
import { MetricsReportLimits } from './metrics-report-limits.js'
import { servingSwaps } from './serving-swaps.js'
import type {
  AccountView,
  BillingPort,
  LivePort,
  TunnelRecord,
  WebhooksPort,
  WebServices,
} from './web-services.js'

/** What `storeWebServices` combines. */
export interface StoreWebServicesParts {
  readonly store: Store
  readonly live: LivePort
  readonly billing: BillingPort
  readonly webhooks: WebhooksPort
  readonly governance: GovernancePort
  readonly access: AccessPort
  /** The budgets of access writes; fresh ones when absent. */
  readonly accessWrites?: AccessWriteLimits
  /** The budgets of metrics reports; fresh ones when absent. */
  readonly metricsReports?: MetricsReportLimits
  readonly meters: (accountId: string, now: Date) => Promise<MetersView>
  /** The live usage counters; absent when quotas are off. */
  readonly liveUsage?: LiveUsagePort
  readonly publicUrl: (subdomain: string, slug: string) => string
  readonly domains?: DomainsPort
  /**
   * Carry tunnel `to`'s month of usage on from where tunnel `from`'s stands (quota counters): a
   * new tunnel from the deleted one's, a tunnel chosen to serve from the one it displaced;
   * absent when quotas are off.
   */
  readonly inheritUsage?: (from: string, to: string) => Promise<void>
}

function record(t: TunnelStatus): TunnelRecord {
  return {
    id: t.id,
    name: t.name,
    subdomain: t.subdomain,
    serving: t.serving,
    pinned: t.pinned,
    createdAt: t.createdAt,
    lastSeenAt: t.lastSeenAt,
  }
}

function account(a: {
  id: string
  email: string
  slug: string
  plan: AccountView['plan']
  planExpiresAt: Date | null
}): AccountView {
  return { id: a.id, email: a.email, slug: a.slug, plan: a.plan, planExpiresAt: a.planExpiresAt }
}

/** The web side's services over the store and the given ports. */
export function storeWebServices(parts: StoreWebServicesParts): WebServices {
  const { store } = parts
  /**
   * Tunnel `id` as a write left it. A delete of it may commit between the write and this read
   * (a key rotation and a delete sent at once): that is the tunnel gone, `not_found` (404), not
   * a failure of burrowd, which answered 500 and logged a stack.
   */
  const status = async (accountId: string, id: string): Promise<TunnelRecord> => {
    const t = await store.getTunnel(accountId, id)
    if (!t) throw new StoreError('not_found', `tunnel "${id}" was deleted meanwhile`)
    return record(t)
  }
  /**
   * The stopped tunnel serving in the place of deleted tunnel `id` (`to`) carries on its month
   * (serving-swaps.ts): else deleting a used-up tunnel gave the next stopped one a fresh month,
   * as often as the account had stopped tunnels (found by a hostile review).
   */
  const inheritDeleted = async (accountId: string, id: string, to: string | null) => {
    if (to === null || !parts.inheritUsage) return
    try {
      await parts.inheritUsage(id, to)
    } catch (error) {
      await store.releaseDeletedTunnel(accountId, id)
      throw error
    }
  }
  return {
    accounts: {
      create: async (input) => account(await store.createAccount(input)),
      verifyLogin: async (email, password) => {
        const a = await store.verifyLogin(email, password)
        return a && account(a)
      },
      passwordStamp: (email) => store.passwordStamp(email),
      get: async (id) => {
        const a = await store.getAccountById(id)
        return a && account(a)
      },
      setPassword: async (accountId, password, replacing) => {
        const stamp = await store.setPassword(accountId, password, replacing)
        await store.accountTokens.revokeAll(accountId, 'reset')
        return stamp
      },
    },
    sessions: {
      create: (accountId, stamp) => store.webSessions.create(accountId, stamp),
      find: (token) => store.webSessions.find(token),
      delete: (token) => store.webSessions.delete(token),
      deleteOthers: (accountId, keepToken) =>
        store.webSessions.deleteForAccount(accountId, keepToken),
    },
    tokens: {
      create: (accountId, name) => store.apiTokens.create(accountId, name),
      list: (accountId) => store.apiTokens.list(accountId),
      revoke: (accountId, id) => store.apiTokens.revoke(accountId, id),
      revokeAll: (accountId) => store.apiTokens.revokeAll(accountId),
      authenticate: (secret) => store.apiTokens.authenticate(secret),
    },
    tunnels: {
      create: async (accountId, input) => {
        const created = await store.createTunnelWithinPlan({ accountId, ...input })
        // Before the key is returned, so no call reaches the tunnel before its counters are set;
        // when they cannot be, the tunnel is not made and the deleted one's month waits.
        if (created.carriesOn !== null && parts.inheritUsage) {
          try {
            await parts.inheritUsage(created.carriesOn, created.tunnel.id)
          } catch (error) {
            await store.undoCreateCarryingOn(accountId, created.tunnel.id, created.carriesOn)
            throw error
          }
        }
        return { tunnel: await status(accountId, created.tunnel.id), key: created.key }
      },
      list: async (accountId) => (await store.listTunnels(accountId)).map(record),
      get: async (accountId, id) => {
        const t = await store.getTunnel(accountId, id)
        return t && record(t)
      },
      rename: async (accountId, id, name) => {
        await store.renameTunnel(accountId, id, name)
      },
      rotateKey: async (accountId, id, reason = 'the tunnel key was rotated') => {
        const rotated = await store.rotateTunnelKey(accountId, id)
        // At once: cut off by the caller after the read below, a failure of that read (the
        // database gone just after the commit) left the old key's client connected, on one node
        // for as long as it stayed (test/app/rotation-cut-off.test.ts).
        parts.live.disconnect(rotated.tunnel.id, reason)
        return { tunnel: await status(accountId, rotated.tunnel.id), key: rotated.key }
      },
      delete: async (accountId, id) => {
        const deleted = await store.deleteTunnel(accountId, id)
        // At once, as a rotation does: after the hand-over below, its failure skipped the cut-off.
        parts.live.disconnect(id, 'the tunnel was deleted')
        try {
          await inheritDeleted(accountId, id, deleted.startedServing)
        } finally {
          parts.live.evictAccount(accountId)
        }
      },
      chooseServing: async (accountId, ids) => {
        const before = await store.listTunnels(accountId)
        const after = await store.chooseServingTunnels(accountId, ids)
        if (!parts.inheritUsage) return
        for (const swap of servingSwaps(before, after)) {
          await parts.inheritUsage(swap.from, swap.to)
        }
      },
    },
    live: parts.live,
    billing: parts.billing,
    webhooks: parts.webhooks,
    governance: parts.governance,
    access: parts.access,
    accessWrites: parts.accessWrites ?? new AccessWriteLimits(),
    metricsReports: parts.metricsReports ?? new MetricsReportLimits(),
    meters: parts.meters,
    ...(parts.liveUsage ? { liveUsage: parts.liveUsage } : {}),
    publicUrl: parts.publicUrl,
    ...(parts.domains ? { domains: parts.domains } : {}),
  }
}
