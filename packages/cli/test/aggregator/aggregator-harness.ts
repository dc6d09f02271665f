/**
 * Shared setup of the aggregator tests: an AggregatorBackend behind McpFront on 127.0.0.1 (port 0)
 * with real upstreams (the agg-paged-server fixture over stdio, or over Streamable HTTP as a child
 * on its own port), a recording AggregatorMetrics, and SDK agents that answer sampling and roots.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { spawn, type ChildProcess } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import {
  AggregatorBackend,
  type AggregatorBackendOptions,
  type AggregatorUpstream,
} from '../../src/aggregator/aggregator-backend.js'
import type { AggregatorMetrics } from '../../src/aggregator/aggregator-metrics.js'
import { HttpChannel } from '../../src/aggregator/http-channel.js'
import type { ResumeLimits } from '../../src/aggregator/stream-resumption.js'
import { StdioChannel } from '../../src/aggregator/stdio-channel.js'
import { McpFront } from '../../src/front/mcp-front.js'
import { serveOverHttp } from '../../src/relay/node-http-adapter.js'
import { StdioSupervisor } from '../../src/stdio/stdio-supervisor.js'
import { captureLogger, type CaptureLogger } from '../helpers/capture-logger.js'
import { fixturePath } from '../helpers/fixtures.js'

/** The fixture every test upstream runs. */
export const FIXTURE = fixturePath('agg-paged-server.mjs')

/** An upstream to put behind the aggregator. */
export type UpstreamDef =
  | { readonly name: string; readonly stdio: readonly string[] }
  | {
      readonly name: string
      /** Another stdio server than the fixture (e.g. server-everything). */
      readonly server: { readonly command: string; readonly args: readonly string[] }
    }
  | {
      readonly name: string
      readonly http: string
      readonly reopenGetMs?: number
      readonly resumeLimits?: ResumeLimits
    }

/** A metrics double that records each call as `method arg,arg`. */
export class RecordingMetrics implements AggregatorMetrics {
  readonly calls: string[] = []
  upstreamFailure(name: string): void {
    this.calls.push(`upstreamFailure ${name}`)
  }
  upstreamRecovery(name: string): void {
    this.calls.push(`upstreamRecovery ${name}`)
  }
  fanout(method: string): void {
    this.calls.push(`fanout ${method}`)
  }
  listCacheHit(name: string, method: string): void {
    this.calls.push(`listCacheHit ${name},${method}`)
  }
  unknownPrefix(): void {
    this.calls.push('unknownPrefix')
  }
  idEviction(): void {
    this.calls.push('idEviction')
  }
  request(name: string, method: string): void {
    this.calls.push(`request ${name},${method}`)
  }
  bytes(name: string, direction: 'in' | 'out', n: number): void {
    if (n > 0) this.calls.push(`bytes ${name},${direction}`)
  }
  /** How many calls equal `call`. */
  count(call: string): number {
    return this.calls.filter((c) => c === call).length
  }
}

/** A served aggregator. */
export interface Aggregator {
  readonly url: URL
  readonly backend: AggregatorBackend
  readonly metrics: RecordingMetrics
  readonly logger: CaptureLogger
  /** Stdio supervisors by upstream name. */
  readonly supervisors: ReadonlyMap<string, StdioSupervisor>
  close(): Promise<void>
}

const live = new Set<Aggregator>()

/** Serve an aggregator over `upstreams`. */
export async function startAggregator(
  upstreams: readonly UpstreamDef[],
  options: Partial<Omit<AggregatorBackendOptions, 'upstreams'>> = {},
): Promise<Aggregator> {
  const logger = captureLogger()
  const metrics = new RecordingMetrics()
  const supervisors = new Map<string, StdioSupervisor>()
  const channels = upstreams.map((def): AggregatorUpstream => {
    if ('http' in def) {
      const channel = new HttpChannel({
        url: def.http,
        name: def.name,
        logger,
        countBytes: true,
        ...(def.reopenGetMs === undefined ? {} : { reopenGetMs: def.reopenGetMs }),
        ...(def.resumeLimits === undefined ? {} : { resumeLimits: def.resumeLimits }),
      })
      return { name: def.name, channel }
    }
    const supervisor = new StdioSupervisor({
      command: 'server' in def ? def.server.command : process.execPath,
      args: 'server' in def ? [...def.server.args] : [FIXTURE, ...def.stdio],
      label: def.name,
      logger,
      timing: { initialBackoffMs: 100, maxBackoffMs: 400 },
      closeGraceMs: 500,
    })
    supervisors.set(def.name, supervisor)
    const channel = new StdioChannel({ supervisor, name: def.name, logger, countBytes: true })
    return { name: def.name, channel }
  })
  const backend = new AggregatorBackend({
    upstreams: channels,
    logger,
    metrics,
    retryDelayMs: () => 200,
    ...options,
  })
  const front = new McpFront({ backend, logger, keepAliveMs: 0 })
  const server: Server = serveOverHttp(front, { logger })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const aggregator: Aggregator = {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    backend,
    metrics,
    logger,
    supervisors,
    async close() {
      if (!live.delete(aggregator)) return
      await closeAgents()
      await front.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  live.add(aggregator)
  return aggregator
}

/** Close every aggregator still open (for a file's `after`). */
export async function closeAllAggregators(): Promise<void> {
  await Promise.all([...live].map((a) => a.close()))
  await Promise.all([...children].map((c) => stopChild(c)))
}

/** An SDK agent and what it received. */
export interface Agent {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
  /** Sampling requests it answered (their first message's text). */
  readonly sampled: string[]
  /** tools/list_changed notifications received. */
  listChanged: number
  /** Logging notifications received (params). */
  readonly logs: Record<string, unknown>[]
}

const agents = new Set<Agent>()

/**
 * Connect an agent named `name`; it answers sampling with `<name> says: <prompt>` and roots/list
 * with `file:///<name>`, unless `capabilities` leaves them out.
 */
export async function connectAgent(
  url: URL,
  name = 'agent',
  capabilities: Record<string, object> = { sampling: {}, roots: { listChanged: true } },
): Promise<Agent> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities })
  const transport = new StreamableHTTPClientTransport(url)
  const agent: Agent = { client, transport, sampled: [], listChanged: 0, logs: [] }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const content = request.params.messages[0]?.content as { text?: string } | undefined
      agent.sampled.push(content?.text ?? '')
      return {
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: `${name} says: ${content?.text ?? ''}` },
      }
    })
  }
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: `file:///${name}`, name }],
    }))
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    agent.listChanged += 1
  })
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
    agent.logs.push(n.params)
  })
  await client.connect(transport)
  agents.add(agent)
  return agent
}

async function closeAgents(): Promise<void> {
  await Promise.all([...agents].map((a) => a.client.close().catch(() => {})))
  agents.clear()
}

/** Every tool name, following the aggregator's cursors; also returns the page count. */
export async function allTools(client: Client): Promise<{ names: string[]; pages: number }> {
  const names: string[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor })
    pages += 1
    names.push(...page.tools.map((t) => t.name))
    cursor = page.nextCursor
  } while (cursor !== undefined && pages < 100)
  return { names, pages }
}

/** Text of a tool result's first content item. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? []
  return content[0]?.type === 'text' ? (content[0].text ?? '') : ''
}

/** Wait until `check` holds, polling every 50 ms, up to `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const children = new Set<ChildProcess>()

/**
 * The fixture (or another of `test/fixtures` taking `--http PORT`, `script`) as a Streamable HTTP
 * server on `port` (0: any); resolves with its URL.
 */
export async function startHttpFixture(
  args: readonly string[],
  port = 0,
  script = FIXTURE,
): Promise<{ url: string; port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [script, '--http', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  child.once('exit', () => children.delete(child))
  const actual = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const match = /listening on (\d+)/.exec(out)
      if (match) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`the HTTP fixture exited (${code}): ${out}`)))
  })
  return { url: `http://127.0.0.1:${actual}/mcp`, port: actual, child }
}

/** Kill a child and wait for its exit. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  await exited
}
