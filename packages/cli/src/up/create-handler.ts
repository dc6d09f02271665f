/**
 * Picks the local handler for an upstream layout: the HTTP relay for one `--upstream URL`, the MCP
 * front over a supervised child for one `--stdio CMD`, the aggregator for several.
 */
import type { Logger } from '@burrow/protocol'
import { createAggregatorHandler } from '../aggregator/create-aggregator-handler.js'
import type { AggregatorMetrics } from '../aggregator/aggregator-metrics.js'
import { UsageError } from '../cli-errors.js'
import type { Env } from '../config.js'
import { MeteredHandler } from '../metrics/metered-handler.js'
import { HttpRelay } from '../relay/http-relay.js'
import type { RequestHandler } from '../relay/local-exchange.js'
import { describeUpstream, type UpstreamSpec } from '../upstreams/upstream-spec.js'
import { createStdioHandler } from './create-stdio-handler.js'
import { CLI_VERSION } from '../version.js'

/** The handler and how to describe it to the user. */
export function createHandler(
  specs: readonly UpstreamSpec[],
  env: Env,
  log: Logger,
  metrics?: AggregatorMetrics,
): { handler: RequestHandler; label: string } {
  const spec = specs[0]
  if (!spec) throw new UsageError('no upstream given: pass --upstream URL or --stdio "COMMAND"')
  if (specs.length > 1) {
    const label = `${specs.length} upstreams: ${specs.map((s) => `${s.name ?? '?'} (${describeUpstream(s)})`).join(', ')}`
    return {
      handler: createAggregatorHandler(specs, env, log, metrics, { version: CLI_VERSION }),
      label,
    }
  }
  const single =
    spec.kind === 'http' ? new HttpRelay(spec.url, log) : createStdioHandler(spec, env, log)
  return {
    handler: metrics ? new MeteredHandler(single, metrics, spec.name ?? 'default') : single,
    label: describeUpstream(spec),
  }
}
