// Starts the real binaries for end-to-end tests: burrowd on a temp data dir and a fixed port,
// an account and a tunnel made with the operator commands, and `burrow up` against it.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startChild, type Child } from './child.js'
import { freePort } from './free-port.js'

const run = promisify(execFile)

/** Repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** The built executables the tests run. */
export const BURROWD = join(ROOT, 'packages/server/dist/bin/burrowd.js')
export const BURROW = join(ROOT, 'packages/cli/dist/bin/burrow.js')
/** server-everything's entry point (stdio by default, `streamableHttp` for HTTP). */
export const EVERYTHING = join(
  ROOT,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
)

/** A running burrowd with one account and tunnel. */
export interface Service {
  readonly port: number
  readonly dataDir: string
  readonly broker: string
  readonly env: NodeJS.ProcessEnv
  proc: Child
  /** Start burrowd again on the same port and data (after `proc.stop()`). */
  restart(): Promise<void>
  /** Create a tunnel; returns its key and public /mcp URL. */
  tunnel(name?: string): Promise<{ id: string; key: string; url: string; publicUrl: string }>
  close(): Promise<void>
}

/** Start burrowd with its own data dir; `env` adds BURROW_* settings; `plan` is the account's. */
export async function startService(
  env: NodeJS.ProcessEnv = {},
  options: { readonly plan?: 'free' | 'pro' | 'scale' } = {},
): Promise<Service> {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-e2e-'))
  const fullEnv = {
    ...process.env,
    BURROW_DATA_DIR: dataDir,
    BURROW_LISTEN: `127.0.0.1:${port}`,
    BURROW_LOG: 'debug',
    ...env,
  }
  await run(
    process.execPath,
    [
      BURROWD,
      'account',
      'create',
      '--email',
      'e2e@example.com',
      '--slug',
      'acme',
      '--plan',
      options.plan ?? 'free',
      '--json',
    ],
    { env: fullEnv },
  )
  const launch = async () => {
    const child = startChild(process.execPath, [BURROWD, 'serve'], { env: fullEnv })
    await child.waitFor(/burrowd listening/)
    return child
  }
  const service: Service = {
    port,
    dataDir,
    broker: `ws://127.0.0.1:${port}`,
    env: fullEnv,
    proc: await launch(),
    async restart() {
      service.proc = await launch()
    },
    async tunnel(name) {
      const args = [
        BURROWD,
        'tunnel',
        'create',
        '--account',
        'acme',
        '--json',
        // Suites that test the tunnel itself call it without credentials; access has its own.
        '--access',
        'public',
        ...(name ? ['--name', name] : []),
      ]
      const { stdout } = await run(process.execPath, args, { env: fullEnv })
      const t = JSON.parse(stdout) as { id: string; key: string; public_url: string }
      return { id: t.id, key: t.key, publicUrl: t.public_url, url: `${t.public_url}/mcp` }
    },
    async close() {
      await service.proc.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
  return service
}

/** Start `burrow up` with `args` after `up`, and wait until it is online. */
export async function startClient(
  service: Service,
  key: string,
  upArgs: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Child> {
  const child = startChild(
    process.execPath,
    [BURROW, '--broker', service.broker, 'up', ...upArgs],
    {
      env: { ...process.env, BURROW_API_KEY: key, BURROW_LOG: 'debug', ...env },
    },
  )
  await child.waitFor(/Tunnel online/)
  return child
}
