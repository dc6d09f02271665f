/**
 * MCP revisions and the two eras of the wire: the 2025 revisions (an `initialize` handshake,
 * sessions) and 2026-07-28 onwards (no sessions; every request names its revision in
 * `params._meta.protocolVersion`, and a client opens with `server/discover`). A request's era is
 * read from its body; headers may disagree (some clients send an older header with a newer body)
 * and never decide it alone.
 */
import { isRecord } from './json-rpc.js'

/** The first revision of the sessionless era. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28'

/** 2025 revisions whose Streamable HTTP wire Burrow serves, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
]

/** Assumed when a request carries no `MCP-Protocol-Version` header (the 2025-06-18 rule). */
export const DEFAULT_PROTOCOL_VERSION = '2025-03-26'

/** Revisions whose clients may send JSON-RPC batches (2025-06-18 removed batching). */
export const BATCHING_PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(['2025-03-26', '2024-11-05'])

/** `legacy`: a 2025 revision (or none said); `modern`: 2026-07-28 or later. */
export type ProtocolEra = 'legacy' | 'modern'

const DATE = /^\d{4}-\d{2}-\d{2}$/

/** The revision a message's body names in `params._meta.protocolVersion`, or null. */
export function bodyProtocolVersion(message: Record<string, unknown>): string | null {
  const params = message.params
  if (!isRecord(params)) return null
  const meta = params._meta
  if (!isRecord(meta)) return null
  const version = meta.protocolVersion
  return typeof version === 'string' && DATE.test(version) ? version : null
}

/** The era of a request or notification: its body's revision, or `server/discover`. */
export function eraOf(method: string | null, bodyVersion: string | null): ProtocolEra {
  if (method === 'server/discover') return 'modern'
  return bodyVersion !== null && bodyVersion >= MODERN_PROTOCOL_VERSION ? 'modern' : 'legacy'
}
