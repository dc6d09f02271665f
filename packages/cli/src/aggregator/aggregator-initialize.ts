/**
 * The aggregator's answer to an agent's `initialize`: it never reaches an upstream. Capabilities
 * are merged from what the upstreams declared (the latest initialize of each, so an upstream that
 * is down for a moment still counts); the list capabilities always announce `listChanged`, since
 * the aggregator notifies agents whenever an upstream's items appear or disappear. Instructions
 * name the upstreams and carry their own instructions, without commands or URLs, which stay local.
 */
import { LEGACY_PROTOCOL_VERSIONS } from '@burrow/protocol'
import { cutText } from '../cut-text.js'
import { prefixName } from './prefixed-name.js'
import { recordOf } from './upstream-info.js'
import type { UpstreamLink } from './upstream-link.js'

/** `serverInfo.name` of the aggregator. */
export const AGGREGATOR_SERVER_NAME = 'burrow-aggregator'

/** Longest excerpt of an upstream's own instructions passed on. */
const INSTRUCTIONS_EXCERPT = 2_000

/** Capabilities offered by the upstreams together. Tools are always offered. */
export function mergedCapabilities(links: readonly UpstreamLink[]): Record<string, unknown> {
  const declared = links.map((link) => link.info?.capabilities ?? {})
  const any = (name: string): boolean => declared.some((caps) => recordOf(caps[name]))
  const capabilities: Record<string, unknown> = { tools: { listChanged: true } }
  if (any('prompts')) capabilities.prompts = { listChanged: true }
  if (any('resources')) {
    const subscribe = declared.some((caps) => recordOf(caps.resources)?.subscribe === true)
    capabilities.resources = { listChanged: true, ...(subscribe ? { subscribe: true } : {}) }
  }
  if (any('logging')) capabilities.logging = {}
  if (any('completions')) capabilities.completions = {}
  return capabilities
}

/** The InitializeResult for an agent that asked with `params`. */
export function aggregatorInitializeResult(
  params: Readonly<Record<string, unknown>> | undefined,
  links: readonly UpstreamLink[],
  version: string,
): Record<string, unknown> {
  const asked = params?.protocolVersion
  const protocolVersion =
    typeof asked === 'string' && LEGACY_PROTOCOL_VERSIONS.includes(asked)
      ? asked
      : LEGACY_PROTOCOL_VERSIONS[0]
  return {
    protocolVersion,
    capabilities: mergedCapabilities(links),
    serverInfo: { name: AGGREGATOR_SERVER_NAME, title: 'Burrow aggregator', version },
    instructions: aggregatorInstructions(links),
  }
}

/** What the agent is told about the servers behind the endpoint. */
export function aggregatorInstructions(links: readonly UpstreamLink[]): string {
  const example = links[0] ? ` (for example "${prefixName(links[0].name, 'search')}")` : ''
  const lines = [
    `This endpoint aggregates ${links.length} MCP servers. Their tools and prompts are named ` +
      `"<server>__<name>"${example}; resources keep their own URIs.`,
    'Servers:',
  ]
  for (const link of links) {
    const info = link.info
    const title = info?.serverInfo?.title ?? info?.serverInfo?.name
    const what = typeof title === 'string' ? `: ${title}` : ''
    const state = link.ready ? '' : ' (unavailable at the moment)'
    lines.push(`- ${link.name}${what}${state}`)
    const own = info?.instructions?.trim()
    if (own) {
      const excerpt = cutText(own, INSTRUCTIONS_EXCERPT)
      lines.push(...excerpt.split('\n').map((line) => `    ${line}`))
    }
  }
  return lines.join('\n')
}
