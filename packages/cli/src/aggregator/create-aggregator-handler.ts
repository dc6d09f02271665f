/**
 * The handler for aggregator mode (two or more upstreams, docs/configuration.md): the MCP front
 * over an `AggregatorBackend`, with a supervised child per stdio upstream and a Streamable HTTP
 * client connection per HTTP upstream.
 */
import { UsageError } from '../cli-errors.js'
import type { Env } from '../config.js'
import { McpFront } from '../front/mcp-front.js'
import type { Logger } from '../log/logger.js'
import type { RequestHandler } from '../relay/local-exchange.js'
import { stdioSupervisorFor } from '../up/create-stdio-handler.js'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'
import {
  AggregatorBackend,
  type AggregatorBackendOptions,
  type AggregatorUpstream,
} from './aggregator-backend.js'
import { noopAggregatorMetrics, type AggregatorMetrics } from './aggregator-metrics.js'
import { HttpChannel } from './http-channel.js'
import { ambiguousUpstreamNames } from './prefixed-name.js'
import { StdioChannel } from './stdio-channel.js'

/** Tuning for tests; the defaults are the product's. */
export type AggregatorTuning = Omit<AggregatorBackendOptions, 'upstreams' | 'logger' | 'metrics'>

/**
 * Serve `specs` (each with a name) as one MCP endpoint. Stdio children start now; HTTP upstreams
 * are contacted now. Throws `UsageError` for a stdio command that cannot be parsed.
 */
export function createAggregatorHandler(
  specs: readonly UpstreamSpec[],
  env: Env,
  logger: Logger,
  metrics: AggregatorMetrics = noopAggregatorMetrics,
  tuning: AggregatorTuning = {},
): RequestHandler {
  const names = specs.map((spec, index) => spec.name ?? `upstream${index + 1}`)
  const ambiguous = ambiguousUpstreamNames(names)
  if (ambiguous !== null) throw new UsageError(ambiguous)
  const countBytes = metrics !== noopAggregatorMetrics
  const upstreams = specs.map((spec, index): AggregatorUpstream => {
    const name = spec.name ?? `upstream${index + 1}`
    if (spec.kind === 'http') {
      return { name, channel: new HttpChannel({ url: spec.url, name, logger, countBytes }) }
    }
    const supervisor = stdioSupervisorFor({ ...spec, name }, env, logger)
    return { name, channel: new StdioChannel({ supervisor, name, logger, countBytes }) }
  })
  const backend = new AggregatorBackend({ ...tuning, upstreams, logger, metrics })
  return new McpFront({ backend, logger })
}
