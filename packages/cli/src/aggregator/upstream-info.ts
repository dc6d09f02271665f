/**
 * The two sides of the aggregator's initialize with an upstream: what it offers (protocol
 * revision, client capabilities) and what it keeps of the upstream's answer.
 */

/** What an upstream said about itself in its initialize result. */
export interface UpstreamInfo {
  readonly protocolVersion: string
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly serverInfo: Readonly<Record<string, unknown>> | undefined
  readonly instructions: string | undefined
}

/** The protocol revision the aggregator asks upstreams for. */
export const UPSTREAM_PROTOCOL_VERSION = '2025-11-25'

/**
 * The client capabilities the aggregator declares to every upstream: it routes these requests to
 * an agent (which may still refuse them). Declaring them up front, rather than the union of what
 * agents declared, keeps one upstream session valid for agents that come and go.
 */
export const AGGREGATOR_CLIENT_CAPABILITIES: Readonly<Record<string, unknown>> = Object.freeze({
  sampling: {},
  elicitation: {},
  roots: { listChanged: true },
})

/** The parts of an initialize result the aggregator uses. */
export function upstreamInfoOf(result: Readonly<Record<string, unknown>>): UpstreamInfo {
  return {
    protocolVersion:
      typeof result.protocolVersion === 'string'
        ? result.protocolVersion
        : UPSTREAM_PROTOCOL_VERSION,
    capabilities: recordOf(result.capabilities) ?? {},
    serverInfo: recordOf(result.serverInfo),
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  }
}

/** `value` as an object record, or undefined. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}
