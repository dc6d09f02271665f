/**
 * Public hostname → tunnel, with a short cache so the hot path rarely touches the database.
 * Unknown hosts are cached briefly too, so a flood of requests for them stays cheap.
 */
import { parseTunnelHostLabel } from '@burrow/protocol'
import type { TunnelWithAccount } from '../store/store.js'

const HIT_TTL_MS = 5_000
const MISS_TTL_MS = 2_000
const MAX_ENTRIES = 10_000

/** Finds tunnels by public hostname. */
export class TunnelLookup {
  private readonly find: (subdomain: string, slug: string) => Promise<TunnelWithAccount | undefined>
  private readonly zoneSuffix: string
  private readonly cache = new Map<string, { tunnel: TunnelWithAccount | null; expires: number }>()
  /** Bumped by `invalidate`: a lookup begun before it does not fill the cache with what it read. */
  private generation = 0

  constructor(
    zone: string,
    find: (subdomain: string, slug: string) => Promise<TunnelWithAccount | undefined>,
  ) {
    this.zoneSuffix = `.${zone}`
    this.find = find
  }

  /** The `<sub>--<slug>` label when `host` (port stripped, lower-case) is a tunnel hostname. */
  tunnelLabel(host: string): string | null {
    if (!host.endsWith(this.zoneSuffix)) return null
    const label = host.slice(0, -this.zoneSuffix.length)
    if (label.includes('.') || !label.includes('--')) return null
    return label
  }

  /** What `byLabel` would answer from its cache, without waiting; undefined when not cached. */
  cachedByLabel(label: string): TunnelWithAccount | null | undefined {
    const cached = this.cache.get(label)
    return cached && cached.expires > Date.now() ? cached.tunnel : undefined
  }

  /** The tunnel behind a `<sub>--<slug>` label, or null. */
  async byLabel(label: string): Promise<TunnelWithAccount | null> {
    const now = Date.now()
    const cached = this.cache.get(label)
    if (cached && cached.expires > now) return cached.tunnel
    const parts = parseTunnelHostLabel(label)
    // A label no tunnel could have (too long, malformed) costs no lookup and no cache entry:
    // a stranger's Host header cannot fill the cache with big keys.
    if (parts === null) return null
    const generation = this.generation
    const tunnel = (await this.find(parts.subdomain, parts.slug)) ?? null
    if (generation !== this.generation) return tunnel
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear()
    this.cache.set(label, { tunnel, expires: now + (tunnel ? HIT_TTL_MS : MISS_TTL_MS) })
    return tunnel
  }

  /** Forget cached answers (after a tunnel is created, renamed or deleted). */
  invalidate(): void {
    this.generation++
    this.cache.clear()
  }
}
