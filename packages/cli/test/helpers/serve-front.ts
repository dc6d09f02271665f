/**
 * Puts an McpFront with a single stdio backend on 127.0.0.1 (port 0) through the node:http
 * adapter, the way tests and benchmarks reach it with a real HTTP client.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpFront, type McpFrontOptions } from '../../src/front/mcp-front.js'
import { StdioBackend } from '../../src/front/stdio-backend.js'
import { silentLogger, type Logger } from '../../src/log/logger.js'
import { serveOverHttp } from '../../src/relay/node-http-adapter.js'
import { StdioSupervisor, type StdioSupervisorOptions } from '../../src/stdio/stdio-supervisor.js'

/** A served front and what a test needs to drive and stop it. */
export interface ServedFront {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: URL
  readonly front: McpFront
  readonly supervisor: StdioSupervisor
  readonly server: Server
  /** Close the front (and the child), then the HTTP server. */
  close(): Promise<void>
}

/** Options of `serveStdioFront`. */
export interface ServeStdioFrontOptions {
  readonly command: string
  readonly args?: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  readonly logger?: Logger
  readonly supervisor?: Partial<StdioSupervisorOptions>
  readonly front?: Partial<Omit<McpFrontOptions, 'backend'>>
  readonly initializeWaitMs?: number
}

const live = new Set<ServedFront>()

/**
 * Close every front still open. For a file's top-level `after`: a test that timed out never
 * reaches its own cleanup, and a child left running would keep the test runner alive.
 */
export async function closeAllFronts(): Promise<void> {
  await Promise.all([...live].map((served) => served.close()))
}

/**
 * Start a child under a supervisor, an McpFront over it, and an HTTP server for the front.
 * Call `close()` when done, or leave it to `closeAllFronts()`.
 */
export async function serveStdioFront(options: ServeStdioFrontOptions): Promise<ServedFront> {
  const logger = options.logger ?? silentLogger
  const supervisor = new StdioSupervisor({
    command: options.command,
    args: options.args,
    env: options.env,
    logger,
    closeGraceMs: 500,
    ...options.supervisor,
  })
  const backend = new StdioBackend({
    supervisor,
    logger,
    initializeWaitMs: options.initializeWaitMs,
  })
  const front = new McpFront({ backend, logger, ...options.front })
  const server = serveOverHttp(front, { logger })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const served: ServedFront = {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    front,
    supervisor,
    server,
    async close() {
      if (!live.delete(served)) return
      await front.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  live.add(served)
  return served
}
