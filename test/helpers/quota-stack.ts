// Helpers for the quota and session end-to-end tests: the counting MCP fixture, raw MCP requests
// through a tunnel's public URL (to see every status, header and envelope exactly), and the
// operator's `burrowd usage set` and live counters of a running burrowd.
import { setTimeout as sleep } from 'node:timers/promises'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { Redis } from 'ioredis'
import { startChild, type Child } from './child.js'
import { publicFetch } from './public-fetch.js'
import { BURROWD, ROOT, type Service } from './stack.js'

const run = promisify(execFile)

/** The counting MCP server fixture. */
export const COUNTING_SERVER = join(ROOT, 'test/fixtures/counting-mcp-server.mjs')

/** What the counting server has seen. */
export interface Counts {
  readonly tool_calls: number
  readonly initializes: number
  readonly sessions: number
  readonly deletes: number
  /** Calls received per tool name. */
  readonly called: Readonly<Record<string, number>>
  /** `stray_listing` calls waiting for a tools/list to reach the server. */
  readonly waiting_for_listing: number
}

/** A running counting server. */
export interface CountingServer {
  readonly child: Child
  readonly url: string
  counts(): Promise<Counts>
  /** Make the server forget every session, as a restart would. */
  forgetSessions(): Promise<void>
  /** Send the results of the `slow-initialize` initializes waiting, ending their answers. */
  finishInitializes(): Promise<void>
}

/**
 * Start the counting MCP server on a free port; with `sse`, it answers as SSE streams; with
 * `gzip`, it compresses JSON answers (`'1'`: when the request accepts gzip; `'always'`).
 */
export async function startCountingServer(
  options: { readonly sse?: boolean; readonly gzip?: '1' | 'always' } = {},
): Promise<CountingServer> {
  const child = startChild(process.execPath, [COUNTING_SERVER], {
    env: {
      ...process.env,
      ...(options.sse ? { SSE: '1' } : {}),
      ...(options.gzip ? { GZIP: options.gzip } : {}),
    },
  })
  const [, port] = await child.waitFor(/counting server listening on (\d+)/)
  const base = `http://127.0.0.1:${port}`
  return {
    child,
    url: `${base}/mcp`,
    async counts() {
      const res = await fetch(`${base}/counts`)
      return (await res.json()) as Counts
    },
    async forgetSessions() {
      const res = await fetch(`${base}/forget`, { method: 'POST' })
      await res.arrayBuffer()
    },
    async finishInitializes() {
      const res = await fetch(`${base}/finish-initializes`, { method: 'POST' })
      await res.arrayBuffer()
    },
  }
}

/** A response as the agent saw it. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON, or undefined. */
  readonly json: unknown
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
}

/** POST `message` (any JSON) to `url`, in session `sessionId` when given. */
export async function postMcp(url: string, message: unknown, sessionId?: string): Promise<Answer> {
  const res = await publicFetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
    body: JSON.stringify(message),
  })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, json }
}

/** The initialize request an agent sends. */
export function initializeMessage(id: string | number): unknown {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'quota-e2e', version: '1.0.0' },
    },
  }
}

/** Open an MCP session: initialize, then notifications/initialized. Returns the session id. */
export async function openSession(url: string): Promise<string> {
  const answer = await postMcp(url, initializeMessage('init'))
  const sessionId = answer.headers.get('mcp-session-id')
  if (answer.status !== 200 || !sessionId) {
    throw new Error(`initialize failed: HTTP ${answer.status} ${answer.text}`)
  }
  const done = await postMcp(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    sessionId,
  )
  if (done.status !== 202) throw new Error(`notifications/initialized: HTTP ${done.status}`)
  return sessionId
}

/** An open standalone GET stream of a session, as an agent holds it. */
export interface OpenStream {
  readonly status: number
  /** Hang up, as an agent closing its transport does. */
  close(): void
}

/** Open the standalone GET stream of `sessionId`; resolves once its head arrived. */
export async function openStream(url: string, sessionId: string): Promise<OpenStream> {
  const abort = new AbortController()
  const res = await publicFetch(url, {
    method: 'GET',
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': HEADERS['mcp-protocol-version'],
    },
    signal: abort.signal,
  })
  // Read (and drop) what the stream carries, so it stays open until closed.
  res.body?.pipeTo(new WritableStream()).catch(() => {})
  return { status: res.status, close: () => abort.abort() }
}

/** A `tools/call` message. */
export function toolCall(id: string | number, name: string, args: object = {}): unknown {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }
}

/** End a session with DELETE; returns the status. */
export async function deleteSession(url: string, sessionId: string): Promise<number> {
  const res = await publicFetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } })
  await res.arrayBuffer()
  return res.status
}

/** Run `burrowd usage set --tunnel <id> <args> --json` with the service's environment. */
export async function usageSet(
  service: Service,
  tunnelId: string,
  args: readonly string[],
): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    [BURROWD, 'usage', 'set', '--tunnel', tunnelId, ...args, '--json'],
    { env: service.env },
  )
  return JSON.parse(stdout) as Record<string, unknown>
}

/** The current `YYYY-MM` in UTC. */
export function currentPeriod(): string {
  return new Date().toISOString().slice(0, 7)
}

/**
 * A live counter of the running service, where it keeps it: Redis with BURROW_REDIS_URL, else
 * the SQLite row its in-process counters write at most 200 ms after a change. There the value is
 * read until three readings 450 ms apart agree, so that what was counted before the call is in it.
 */
export async function liveCounter(
  service: Service,
  tunnelId: string,
  metric: 'tool_calls' | 'bandwidth_bytes',
): Promise<number> {
  const redisUrl = service.env.BURROW_REDIS_URL
  if (redisUrl) {
    const redis = new Redis(redisUrl)
    try {
      return Number((await redis.get(`burrow:q:${tunnelId}:${currentPeriod()}:${metric}`)) ?? 0)
    } finally {
      await redis.quit()
    }
  }
  const read = () => {
    const db = new Database(join(service.dataDir, 'burrow.db'), { readonly: true })
    try {
      const row = db
        .prepare(
          'select value from usage_counters where period = ? and tunnel_id = ? and metric = ?',
        )
        .get(currentPeriod(), tunnelId, metric) as { value: number } | undefined
      return Number(row?.value ?? 0)
    } finally {
      db.close()
    }
  }
  // Three readings in a row that agree: a write could only have been late by most of a second.
  let value = read()
  let agreeing = 1
  for (const until = Date.now() + 15_000; agreeing < 3 && Date.now() < until;) {
    await sleep(450)
    const next = read()
    agreeing = next === value ? agreeing + 1 : 1
    value = next
  }
  return value
}

/** Delete the Redis keys of `tunnelId` (counters and session places) after a test. */
export async function deleteTunnelKeys(redisUrl: string, tunnelId: string): Promise<void> {
  const redis = new Redis(redisUrl)
  try {
    const keys = await redis.keys(`burrow:*${tunnelId}*`)
    if (keys.length > 0) await redis.del(...keys)
  } finally {
    await redis.quit()
  }
}

/** Until a `stray_listing` call waits at `server` for the next tools/list. */
export async function strayCallWaiting(server: CountingServer): Promise<void> {
  while ((await server.counts()).waiting_for_listing === 0) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
