/**
 * Picks the local handler for an upstream: the HTTP relay for `--upstream URL`, the MCP front
 * over a supervised child for `--stdio CMD`.
 */
import type { Logger } from '@burrow/protocol'
import type { Env, UpstreamSpec } from '../config.js'
import { HttpRelay } from '../relay/http-relay.js'
import type { RequestHandler } from '../relay/local-exchange.js'
import { createStdioHandler } from './create-stdio-handler.js'

/** The handler and how to describe it to the user. */
export function createHandler(
  spec: UpstreamSpec,
  env: Env,
  log: Logger,
): { handler: RequestHandler; label: string } {
  if (spec.kind === 'http') return { handler: new HttpRelay(spec.url, log), label: spec.url }
  return { handler: createStdioHandler(spec.command, env, log), label: `stdio: ${spec.command}` }
}
