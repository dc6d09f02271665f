/**
 * Tunnels' access settings as the store keeps and returns them: the modes, the settings of a
 * tunnel nobody configured, and how a stored mode is read back. Parsing what owners send lives
 * in `access/tunnel-access.ts`.
 */

/** The access modes, safest first. */
export const ACCESS_MODES = ['oauth', 'token', 'public'] as const

/** A tunnel's access mode. */
export type AccessMode = (typeof ACCESS_MODES)[number]

/** The mode of a tunnel nobody chose one for: agents must sign in. */
export const DEFAULT_ACCESS_MODE: AccessMode = 'oauth'

/** A tunnel's access settings. */
export interface TunnelAccess {
  readonly mode: AccessMode
  /** CIDRs as the owner wrote them, normalised (`10.0.0.1` → `10.0.0.1/32`); empty: any address. */
  readonly allowIps: readonly string[]
}

/** The settings of a tunnel that has none stored. */
export const DEFAULT_ACCESS: TunnelAccess = { mode: DEFAULT_ACCESS_MODE, allowIps: [] }

/** Whether `value` names an access mode. */
export function isAccessMode(value: unknown): value is AccessMode {
  return typeof value === 'string' && (ACCESS_MODES as readonly string[]).includes(value)
}

/** A stored mode; an unknown one (a newer burrowd's) is read as the safest. */
export function storedAccessMode(mode: string): AccessMode {
  return isAccessMode(mode) ? mode : DEFAULT_ACCESS_MODE
}
