/**
 * MCP revisions and the two eras of the wire: the 2025 revisions (an `initialize` handshake,
 * sessions) and 2026-07-28 onwards (no sessions; every request names its revision in
 * `params._meta["io.modelcontextprotocol/protocolVersion"]`, and a client may open with
 * `server/discover`). A request's era is read from its body; headers may disagree (some clients
 * send an older header with a newer body) and never decide it alone.
 */
import { isRecord } from './json-rpc.js'
import { META_KEY } from './request-meta.js'

/** The first revision of the sessionless era. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28'

/** Sessionless revisions Burrow serves, newest first (what `server/discover` advertises). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION]

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

/**
 * The revision a message's body names in `params._meta["io.modelcontextprotocol/protocolVersion"]`
 * (the key of the specification and the SDKs), or in a bare `_meta.protocolVersion` as some early
 * clients wrote it; null when neither holds a date.
 */
export function bodyProtocolVersion(message: Record<string, unknown>): string | null {
  const params = message.params
  if (!isRecord(params)) return null
  const meta = params._meta
  if (!isRecord(meta)) return null
  for (const version of [meta[META_KEY.protocolVersion], meta.protocolVersion]) {
    if (typeof version === 'string' && DATE.test(version)) return version
  }
  return null
}

/** The era of a request or notification: its body's revision, or `server/discover`. */
export function eraOf(method: string | null, bodyVersion: string | null): ProtocolEra {
  if (method === 'server/discover') return 'modern'
  return bodyVersion !== null && bodyVersion >= MODERN_PROTOCOL_VERSION ? 'modern' : 'legacy'
}
