/**
 * The header rules of the Streamable HTTP transport, checked the way the MCP SDK's server checks
 * them so agents see the same statuses behind burrow as in front of an SDK server: 406 for an
 * Accept header that lacks a required type, 415 for a body that is not JSON, 400 for an unknown
 * `MCP-Protocol-Version`.
 */
import { LEGACY_PROTOCOL_VERSIONS } from '@burrow/protocol'

/** A refusal: HTTP status and the message of the JSON-RPC error body. */
export interface HttpProblem {
  readonly status: number
  readonly message: string
}

type Headers = Readonly<Record<string, string>>

/** Why a POST's headers are refused, or null. Accept must list both JSON and SSE (spec). */
export function postHeaderProblem(headers: Headers): HttpProblem | null {
  // Accept is a list, so a substring test is the intended semantics (as in the SDK).
  const accept = headers.accept ?? ''
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return {
      status: 406,
      message: 'Not Acceptable: Accept must list both application/json and text/event-stream',
    }
  }
  // Content-Type is one media type: compare it parsed, never as a substring.
  const mediaType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (mediaType !== 'application/json') {
    return { status: 415, message: 'Unsupported Media Type: Content-Type must be application/json' }
  }
  return null
}

/** Why a GET's headers are refused, or null. */
export function getHeaderProblem(headers: Headers): HttpProblem | null {
  if (!(headers.accept ?? '').includes('text/event-stream')) {
    return { status: 406, message: 'Not Acceptable: Accept must list text/event-stream' }
  }
  return null
}

/** Why the `MCP-Protocol-Version` header is refused, or null (absent is fine). */
export function protocolVersionProblem(headers: Headers): HttpProblem | null {
  const version = headers['mcp-protocol-version']
  if (version === undefined || LEGACY_PROTOCOL_VERSIONS.includes(version)) return null
  return {
    status: 400,
    message:
      `Bad Request: unsupported MCP-Protocol-Version ${version} ` +
      `(supported: ${LEGACY_PROTOCOL_VERSIONS.join(', ')})`,
  }
}
