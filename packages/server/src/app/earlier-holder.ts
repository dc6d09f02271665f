/**
 * What a password reset takes back from whoever held an account before its address was proven.
 * Anyone may sign up with an address they do not own; the account stays unverified until a link
 * mailed to it is used. When the mailbox's owner then resets the password, everything the
 * earlier holder made that works without a browser session is ended: API tokens, webhook
 * endpoints, every tunnel's agent tokens, OAuth grants and custom domains, its access settings
 * (back to the default: agents sign in), and every tunnel's key (replaced, the client running
 * with the old one disconnected). A custom domain is the earlier
 * holder's DNS: left, `burrow up` would give it to the owner's agents as the tunnel's URL, and a
 * pending one would be verified by the periodic re-check once they publish its records. Tunnels,
 * their names, policies and history stay.
 */
import { DEFAULT_ACCESS } from '../store/tunnel-access-row.js'
import type { TunnelRecord, WebServices } from './web-services.js'

/** A tunnel whose key was replaced, with its new key (shown once). */
export interface ReplacedKey {
  readonly tunnel: TunnelRecord
  readonly key: string
}

/** End what an earlier holder of account `accountId` could keep; the tunnels' new keys. */
export async function endEarlierHolder(
  svc: WebServices,
  accountId: string,
): Promise<ReplacedKey[]> {
  // API tokens first, all at once under the account's lock: from then on no request of the
  // earlier holder can make anything (the lock's check finds its credential gone, and its
  // browser sessions were ended before), so what is listed below is all there is.
  await svc.tokens.revokeAll(accountId)
  for (const endpoint of await svc.webhooks.list(accountId)) {
    await svc.webhooks.delete(accountId, endpoint.id)
  }
  const replaced: ReplacedKey[] = []
  for (const tunnel of await svc.tunnels.list(accountId)) {
    await svc.access.revokeAll(tunnel.id)
    // A tunnel the earlier holder opened to anyone would expose the owner's local server the
    // moment they run it with the new key: access goes back to the default (agents sign in).
    const access = await svc.access.settings(tunnel.id)
    if (access.mode !== DEFAULT_ACCESS.mode || access.allowIps.length > 0) {
      await svc.access.setSettings(tunnel.id, DEFAULT_ACCESS)
    }
    for (const domain of (await svc.domains?.list(accountId, tunnel.id)) ?? []) {
      await svc.domains?.remove(accountId, tunnel.id, domain.domain)
    }
    replaced.push(
      await svc.tunnels.rotateKey(
        accountId,
        tunnel.id,
        'the account was recovered by its address; its key was replaced',
      ),
    )
  }
  return replaced
}
