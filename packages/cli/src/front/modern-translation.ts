/**
 * What changes between a 2026-07-28 agent and the 2025 server behind the front, message by
 * message. Requests lose what a 2025 server does not know (the protocol's `_meta` keys, the
 * retry's `inputResponses` and `requestState`); results gain what a 2026-07-28 agent expects
 * (`resultType`, and caching hints on discovery, lists and `resources/read`); an InitializeResult
 * becomes a DiscoverResult.
 */
import {
  isRecord,
  META_KEY,
  MODERN_PROTOCOL_VERSIONS,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '@burrow/protocol'

type Result = Readonly<Record<string, unknown>>

/**
 * Caching hints of every result that must carry them. The front cannot know how long a 2025
 * server's lists stay true (it only hears `list_changed` afterwards), so results are stale at once
 * (`ttlMs: 0`), and `private`: the tunnel may be shared by agents of different users.
 */
export const CACHE_HINTS = Object.freeze({ ttlMs: 0, cacheScope: 'private' })

/** Methods whose results carry caching hints (2026-07-28 caching). */
const CACHED_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
])

/** Capabilities of the 2025 era only; a DiscoverResult leaves them out. */
const LEGACY_ONLY_CAPABILITIES = ['tasks']

/** The agent's request as the 2025 server should see it (same id). */
export function legacyRequest(message: JsonRpcRequest): JsonRpcRequest {
  if (!message.params) return message
  const { inputResponses: _r, requestState: _s, _meta, ...rest } = message.params
  void _r
  void _s
  const meta = isRecord(_meta) ? withoutProtocolKeys(_meta) : undefined
  const params = meta && Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest
  return { ...message, params }
}

/** A 2025 server's answer as a 2026-07-28 agent expects it. */
export function modernAnswer(method: string, answer: JsonRpcResponse): JsonRpcResponse {
  if (!('result' in answer)) return answer
  return { ...answer, result: modernResult(method, answer.result) }
}

/** A 2025 result of `method` with `resultType` and, where required, caching hints. */
export function modernResult(method: string, result: Result): Result {
  const hints = CACHED_METHODS.has(method) ? CACHE_HINTS : {}
  return { ...result, resultType: 'complete', ...hints }
}

/** The DiscoverResult that says what the InitializeResult of the server behind the front says. */
export function discoverResult(init: Result): Result {
  const capabilities = isRecord(init.capabilities) ? { ...init.capabilities } : {}
  for (const name of LEGACY_ONLY_CAPABILITIES) delete capabilities[name]
  const serverInfo = isRecord(init.serverInfo) ? init.serverInfo : undefined
  return {
    resultType: 'complete',
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities,
    ...(typeof init.instructions === 'string' ? { instructions: init.instructions } : {}),
    ...(serverInfo ? { _meta: { [META_KEY.serverInfo]: serverInfo } } : {}),
    ...CACHE_HINTS,
  }
}

function withoutProtocolKeys(meta: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(meta)) {
    if (!key.startsWith('io.modelcontextprotocol/')) kept[key] = value
  }
  return kept
}
