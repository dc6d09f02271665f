// Starting the processes under test: burrowd on a fresh SQLite data dir, `burrow up` in front of
// an upstream, the bench fixtures and supergateway. Tunnels are created in-process with the
// store burrowd itself uses, so a thousand of them take a second, not a thousand spawns.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { UP_NODE_FLAGS } from '../packages/cli/dist/up/heap-respawn.js'
import { BURROWD_NODE_FLAGS } from '../packages/server/dist/node-flags.js'
import { openStore } from '../packages/server/dist/store/open-store.js'
import { TunnelAccessStore } from '../packages/server/dist/store/tunnel-access-store.js'
import type { Child } from '../test/helpers/child.js'
import { freePort } from '../test/helpers/free-port.js'
import { BURROW, BURROWD, ROOT } from '../test/helpers/stack.js'
import { lastLine, type ProcessGroup } from './processes.js'

/** The bench fixtures and tools, by absolute path. */
export const FIXTURES = {
  rpcHttp: join(ROOT, 'bench/fixtures/rpc-http-server.mjs'),
  rpcStdio: join(ROOT, 'bench/fixtures/rpc-stdio-server.mjs'),
  idleClients: join(ROOT, 'bench/fixtures/idle-clients.ts'),
  bulk: join(ROOT, 'test/fixtures/bulk-server.mjs'),
  tcpRelay: join(ROOT, 'bench/fixtures/tcp-relay.mjs'),
  httpProxy: join(ROOT, 'bench/fixtures/http-proxy.mjs'),
  leanHttpProxy: join(ROOT, 'bench/fixtures/lean-http-proxy.mjs'),
  supergateway: join(ROOT, 'node_modules/.bin/supergateway'),
  everything: join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
} as const

const liveDirs = new Set<string>()

/** A temporary data directory, removed by `remove` (or by `removeTempDataDirs`). */
export function tempDataDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'burrow-bench-'))
  liveDirs.add(path)
  return {
    path,
    remove: () => {
      liveDirs.delete(path)
      rmSync(path, { recursive: true, force: true })
    },
  }
}

/** Remove every temporary data directory still there (after an interrupted run). */
export function removeTempDataDirs(): void {
  for (const path of liveDirs) rmSync(path, { recursive: true, force: true })
  liveDirs.clear()
}

/**
 * Create one account and `names.length` tunnels in the SQLite store under `dataDir` (a null
 * name gets a random subdomain). Returns the tunnel keys in order.
 */
export async function createTunnels(
  dataDir: string,
  names: readonly (string | null)[],
  /** A governance policy document to give every tunnel (as `PUT …/policy` would). */
  policy?: Record<string, unknown>,
  /**
   * The checkout whose store writes the database (default this one): an older build's burrowd
   * refuses a database a newer one migrated, so an A/B run lets each build make its own.
   */
  checkout?: string,
): Promise<string[]> {
  const code =
    checkout === undefined
      ? { openStore, TunnelAccessStore }
      : {
          openStore: (
            (await import(codeOf(checkout, 'store/open-store.js'))) as {
              openStore: typeof openStore
            }
          ).openStore,
          TunnelAccessStore: (
            (await import(codeOf(checkout, 'store/tunnel-access-store.js'))) as {
              TunnelAccessStore: typeof TunnelAccessStore
            }
          ).TunnelAccessStore,
        }
  const store = await code.openStore({ databaseUrl: null, dataDir })
  try {
    const account = await store.createAccount({
      email: 'bench@example.com',
      slug: 'bench',
      plan: 'scale',
    })
    const keys: string[] = []
    for (const name of names) {
      const { tunnel, key } = await store.createTunnel({ accountId: account.id, name })
      await new code.TunnelAccessStore(store.db).set(tunnel.id, { mode: 'public', allowIps: [] })
      if (policy) await store.policies.set(tunnel.id, JSON.stringify(policy), 'bench', new Date())
      keys.push(key)
    }
    return keys
  } finally {
    await store.close()
  }
}

/** The URL of `file` of `checkout`'s built burrowd (`packages/server/dist/…`). */
function codeOf(checkout: string, file: string): string {
  return pathToFileURL(join(checkout, 'packages/server/dist', file)).href
}

/** A running burrowd. */
export interface Burrowd {
  readonly child: Child
  readonly pid: number
  readonly broker: string
}

/**
 * Start `burrowd serve` on a free port over `dataDir` and wait until it listens, with the Node
 * flags it is deployed with. `nodeArgs` go to node too (e.g. `--inspect=127.0.0.1:0`).
 */
export async function startBurrowd(
  group: ProcessGroup,
  dataDir: string,
  options: {
    logLevel?: string
    nodeArgs?: readonly string[]
    /** More BURROW_* settings, e.g. `BURROW_QUOTAS: 'off'`. */
    env?: Readonly<Record<string, string>>
  } = {},
): Promise<Burrowd> {
  const port = await freePort()
  const logLevel = options.logLevel ?? 'info'
  const args = [...BURROWD_NODE_FLAGS, ...(options.nodeArgs ?? []), BURROWD, 'serve']
  const child = group.start('burrowd', process.execPath, args, {
    env: {
      ...process.env,
      BURROW_DATA_DIR: dataDir,
      BURROW_LISTEN: `127.0.0.1:${port}`,
      BURROW_LOG: logLevel,
      ...options.env,
    },
  })
  await child.waitFor(/burrowd listening/)
  return { child, pid: child.proc.pid!, broker: `ws://127.0.0.1:${port}` }
}

/** A running `burrow up` and the public URL it announced. */
export interface TunnelClient {
  readonly child: Child
  readonly pid: number
  readonly url: string
}

/**
 * Start `burrow up <upArgs>` with `key` and wait for "Tunnel online". Rejects with the client's
 * last output line when it exits or does not come online in 15 s. Node is given the client's
 * heap flags itself, so `up` runs in the process started here (it does not start a second one)
 * and its CPU and memory are that process's.
 */
export async function startBurrowUp(
  group: ProcessGroup,
  broker: string,
  key: string,
  upArgs: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<TunnelClient> {
  const child = group.start(
    'burrow up',
    process.execPath,
    [...UP_NODE_FLAGS, ...nodeArgs, BURROW, '--broker', broker, 'up', ...upArgs],
    {
      env: {
        ...process.env,
        BURROW_API_KEY: key,
        BURROW_LOG: 'info',
        BURROW_NO_UPDATE_CHECK: '1',
        BURROW_NO_TELEMETRY: '1',
      },
    },
  )
  try {
    const match = await child.waitFor(/Tunnel online:\s+(\S+)/)
    return { child, pid: child.proc.pid!, url: match[1]! }
  } catch {
    await group.stop(child)
    throw new Error(`burrow up ${upArgs.join(' ')}: ${lastLine(child)}`)
  }
}

/** Start a fixture that prints "listening on PORT"; returns its child and port. */
export async function startFixture(
  group: ProcessGroup,
  file: string,
): Promise<{ child: Child; pid: number; port: number }> {
  const child = group.start(file, process.execPath, [file])
  const match = await child.waitFor(/listening on (\d+)/)
  return { child, pid: child.proc.pid!, port: Number(match[1]) }
}

/** Two hops started in a row: the port to call and both children. */
export interface HopPair {
  readonly port: number
  readonly children: Child[]
  readonly pids: number[]
  /** What to remove once the children stopped (their files), if anything. */
  readonly cleanup?: () => void
}

/**
 * Start two TCP relays in a row in front of `targetPort` (bench/fixtures/tcp-relay.mjs): the
 * floor of any tunnel.
 */
export function startRelayPair(group: ProcessGroup, targetPort: number): Promise<HopPair> {
  return startHopPair(group, 'relay', FIXTURES.tcpRelay, targetPort)
}

/**
 * Start two plain HTTP reverse proxies in a row in front of `targetPort`
 * (bench/fixtures/http-proxy.mjs): the floor of a tunnel that reads HTTP at both ends.
 */
export function startHttpProxyPair(group: ProcessGroup, targetPort: number): Promise<HopPair> {
  return startHopPair(group, 'proxy', FIXTURES.httpProxy, targetPort)
}

/**
 * Start two lean HTTP proxies in a row in front of `targetPort` (bench/fixtures/lean-http-proxy.mjs:
 * Node's HTTP parser on raw sockets, without node:http or undici); bench/floors.ts measures them.
 */
export function startLeanProxyPair(group: ProcessGroup, targetPort: number): Promise<HopPair> {
  return startHopPair(group, 'lean proxy', FIXTURES.leanHttpProxy, targetPort)
}

async function startHopPair(
  group: ProcessGroup,
  name: string,
  fixture: string,
  targetPort: number,
): Promise<HopPair> {
  const inner = group.start(name, process.execPath, [fixture, String(targetPort)])
  const innerPort = Number((await inner.waitFor(/listening on (\d+)/))[1])
  const outer = group.start(name, process.execPath, [fixture, String(innerPort)])
  const port = Number((await outer.waitFor(/listening on (\d+)/))[1])
  return { port, children: [outer, inner], pids: [outer.proc.pid!, inner.proc.pid!] }
}

/** Start supergateway bridging `stdioCommand` to stateful Streamable HTTP at `/mcp`. */
export async function startSupergateway(
  group: ProcessGroup,
  stdioCommand: string,
): Promise<{ child: Child; pid: number; url: string }> {
  const port = await freePort()
  const child = group.start('supergateway', process.execPath, [
    FIXTURES.supergateway,
    '--stdio',
    stdioCommand,
    '--outputTransport',
    'streamableHttp',
    '--stateful',
    '--port',
    String(port),
    '--streamableHttpPath',
    '/mcp',
    '--healthEndpoint',
    '/healthz',
    // Its default level logs every message; "none" keeps that cost out of the numbers.
    '--logLevel',
    'none',
  ])
  const deadline = Date.now() + 15_000
  for (;;) {
    try {
      const res = await request(`http://127.0.0.1:${port}/healthz`)
      await res.body.dump()
      if (res.statusCode === 200) break
    } catch {
      // Not listening yet.
    }
    if (child.proc.exitCode !== null || Date.now() > deadline) {
      await group.stop(child)
      throw new Error(`supergateway did not start: ${lastLine(child)}`)
    }
    await sleep(100)
  }
  return { child, pid: child.proc.pid!, url: `http://127.0.0.1:${port}/mcp` }
}

/**
 * Start the MCP SDK's reference server (`server-everything`) in its Streamable HTTP mode on a free
 * port (it reads `PORT`) and wait until it listens; it serves `/mcp` on every interface.
 */
export async function startEverythingHttp(
  group: ProcessGroup,
): Promise<{ child: Child; pid: number; url: string }> {
  const port = await freePort()
  const child = group.start(
    'server-everything',
    process.execPath,
    [FIXTURES.everything, 'streamableHttp'],
    { env: { ...process.env, PORT: String(port) } },
  )
  try {
    await child.waitFor(/listening on port/)
  } catch {
    await group.stop(child)
    throw new Error(`server-everything did not start: ${lastLine(child)}`)
  }
  return { child, pid: child.proc.pid!, url: `http://127.0.0.1:${port}/mcp` }
}

/** A command line for `node <file>` that survives shell-style parsing (burrow and sh alike). */
export function nodeCommand(file: string): string {
  return [process.execPath, file].map(quote).join(' ')
}

function quote(arg: string): string {
  return /^[\w./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}
