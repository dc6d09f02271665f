/**
 * The URL `burrow up` is told in WELCOME (and prints in its snippet): a tunnel's custom domain
 * when one serves it as the tunnel connects, else its own hostname. The broker looks the tunnel
 * up by key (async) before the registry answers HELLO (sync), so the custom URL is noted on the
 * way and read back there.
 */
import type { TunnelWithAccount } from '../store/store.js'

/** Custom URLs of connecting tunnels. */
export class WelcomeUrls {
  readonly #urls = new Map<string, string>()
  #lookup: ((tunnel: TunnelWithAccount) => Promise<string | undefined>) | null = null

  /** Where custom URLs come from (set once the domains feature is built). */
  use(lookup: (tunnel: TunnelWithAccount) => Promise<string | undefined>): void {
    this.#lookup = lookup
  }

  /** Note the custom URL of `tunnel`, which is connecting now; returns it, for chaining. */
  async note(tunnel: TunnelWithAccount | undefined): Promise<TunnelWithAccount | undefined> {
    if (tunnel === undefined || this.#lookup === null) return tunnel
    const url = await this.#lookup(tunnel)
    if (url === undefined) this.#urls.delete(tunnel.id)
    else this.#urls.set(tunnel.id, url)
    return tunnel
  }

  /** The URL to tell `tunnel`'s client: its custom URL when noted, else `own`. */
  urlFor(tunnel: TunnelWithAccount, own: string): string {
    return this.#urls.get(tunnel.id) ?? own
  }
}
