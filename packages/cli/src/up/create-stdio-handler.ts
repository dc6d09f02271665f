/**
 * The handler for one stdio upstream: the MCP front (a Streamable HTTP endpoint of our own) over
 * one supervised child process that all agent sessions share.
 */
import type { Logger } from '@burrow/protocol'
import { UsageError } from '../cli-errors.js'
import type { Env } from '../config.js'
import { McpFront } from '../front/mcp-front.js'
import { StdioBackend } from '../front/stdio-backend.js'
import type { RequestHandler } from '../relay/local-exchange.js'
import { parseCommand } from '../stdio/parse-command.js'
import { StdioSupervisor } from '../stdio/stdio-supervisor.js'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'

/** A supervisor for a stdio upstream (its command parsed, or its argv as configured). */
export function stdioSupervisorFor(
  spec: Extract<UpstreamSpec, { kind: 'stdio' }>,
  env: Env,
  logger: Logger,
): StdioSupervisor {
  let command: string
  let args: readonly string[]
  if (spec.argv && spec.argv.length > 0) {
    ;[command, ...args] = spec.argv as [string, ...string[]]
  } else {
    try {
      ;({ command, args } = parseCommand(spec.command, env))
    } catch (err) {
      throw new UsageError((err as Error).message)
    }
  }
  return new StdioSupervisor({
    command,
    args: [...args],
    displayCommand: spec.command,
    label: spec.name ?? 'stdio',
    logger,
    ...(spec.env ? { env: { ...spec.env } } : {}),
  })
}

/** Start the child and serve it as a Streamable HTTP MCP endpoint. */
export function createStdioHandler(
  spec: Extract<UpstreamSpec, { kind: 'stdio' }>,
  env: Env,
  logger: Logger,
): RequestHandler {
  const supervisor = stdioSupervisorFor(spec, env, logger)
  return new McpFront({ backend: new StdioBackend({ supervisor, logger }), logger })
}
