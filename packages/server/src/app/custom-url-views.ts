/** Tunnel views with the custom domain's URL of those a custom domain serves now. */
import type { TunnelView } from './tunnel-view.js'
import type { WebServices } from './web-services.js'

/** `views` (of account `accountId`) with `customUrl` set where a custom domain serves. */
export async function withCustomUrls<T extends TunnelView>(
  svc: WebServices,
  accountId: string,
  views: readonly T[],
): Promise<T[]> {
  const urls = (await svc.domains?.servingUrls(accountId)) ?? new Map<string, string>()
  return views.map((v) => {
    const customUrl = urls.get(v.id)
    return customUrl === undefined ? v : { ...v, customUrl }
  })
}
