/**
 * Views of one account's data shared by the dashboard and the API: its tunnels with live state
 * and public URLs, and its billing state with this month's meters.
 */
import { planState, type BillingView } from './billing-view.js'
import { DEFAULT_ACCESS_MODE } from '../store/tunnel-access-row.js'
import type { TunnelView, TunnelWithAccess } from './tunnel-view.js'
import type { AccountView, TunnelRecord, WebServices } from './web-services.js'

/** One tunnel with its public URL and whether a client is connected. */
export function tunnelView(svc: WebServices, account: AccountView, t: TunnelRecord): TunnelView {
  return {
    ...t,
    publicUrl: svc.publicUrl(t.subdomain, account.slug),
    online: svc.live.isOnline(t.id),
  }
}

/** `views` with how many of their tools wait for the owner (for the dashboard's banners). */
export async function withToolAlerts<T extends TunnelView>(
  svc: WebServices,
  accountId: string,
  views: readonly T[],
): Promise<T[]> {
  const awaiting = await svc.governance.toolsAwaiting(accountId)
  return views.map((v) => ({ ...v, toolsAwaiting: awaiting.get(v.id) ?? 0 }))
}

/**
 * `views` with each tunnel's access mode, for pages that flag public tunnels and snippets that
 * carry the agent-token header (a tunnel without settings is the default, `oauth`, as the edge
 * reads it).
 */
export async function withAccessModes<T extends TunnelView>(
  svc: WebServices,
  views: readonly T[],
): Promise<(T & TunnelWithAccess)[]> {
  const modes = await svc.access.modes(views.map((v) => v.id))
  return views.map((v) => ({ ...v, accessMode: modes.get(v.id) ?? DEFAULT_ACCESS_MODE }))
}

/** Every tunnel of the account, in serving order. */
export async function tunnelViews(svc: WebServices, account: AccountView): Promise<TunnelView[]> {
  return (await svc.tunnels.list(account.id)).map((t) => tunnelView(svc, account, t))
}

/** The account's plan state and meters. */
export async function billingView(
  svc: WebServices,
  account: AccountView,
  now: Date,
): Promise<BillingView> {
  const [sub, meters, tunnels, history] = await Promise.all([
    svc.billing.subscription(account.id),
    svc.meters(account.id, now),
    svc.tunnels.list(account.id),
    svc.billing.history(account.id),
  ])
  const names = new Map(tunnels.map((t) => [t.id, t.name ?? t.subdomain]))
  const known = meters.tunnels.filter((m) => names.has(m.tunnelId))
  const seen = new Set(known.map((m) => m.tunnelId))
  const rows = [
    ...known.map((m) => ({ ...m, name: names.get(m.tunnelId) ?? m.name })),
    ...tunnels
      .filter((t) => !seen.has(t.id))
      .map((t) => ({
        tunnelId: t.id,
        name: t.name ?? t.subdomain,
        toolCalls: 0,
        bandwidthBytes: 0,
      })),
  ]
  return {
    plan: account.plan,
    ...planState(account.plan, account.planExpiresAt, sub),
    tunnelCount: tunnels.length,
    meters: { ...meters, tunnels: rows },
    chargedBackAt: sub?.chargedBackAt ?? null,
    foreign: sub?.fromCheckout === false,
    history,
  }
}
