/**
 * A tunnel as the dashboard and the API show it: its record, its public URL, whether a client
 * is connected now, and whether it serves under the account's plan.
 */

/** One tunnel, ready to show. */
export interface TunnelView {
  readonly id: string
  readonly name: string | null
  readonly subdomain: string
  /** Without `/mcp`. */
  readonly publicUrl: string
  /** A `burrow up` client is connected now. */
  readonly online: boolean
  /** False when the account has more tunnels than its plan allows and this one is stopped. */
  readonly serving: boolean
  /** The owner chose it to keep serving. */
  readonly pinned: boolean
  readonly createdAt: Date
  readonly lastSeenAt: Date | null
  /** The custom domain's URL (without `/mcp`) when one serves the tunnel (set where pages show it). */
  readonly customUrl?: string
  /** Tools rug-pull protection saw change that wait for the owner (set where pages show it). */
  readonly toolsAwaiting?: number
  /** Who may call it (set where pages show it: a public tunnel is flagged). */
  readonly accessMode?: 'oauth' | 'token' | 'public'
}

/** A tunnel whose access mode was read: what a client snippet is made from (its header). */
export type TunnelWithAccess = TunnelView & {
  readonly accessMode: NonNullable<TunnelView['accessMode']>
}
