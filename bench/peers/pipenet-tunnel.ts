// The pipenet peer (npm `pipenet`, the tunnel behind `mcp-proxy --tunnel`, a localtunnel
// descendant): `pipenet server --domain localhost` on a free port and `pipenet client --subdomain
// abcd` in front of the origin; calls go to the server with `Host: abcd.localhost`. pipenet needs
// Node 22 or later, so both run through `npx -y -p node@22 -p pipenet@<version>`, which fetches
// them into npx's cache on the first run. The server's defaults are kept, including its cap of 10
// connections from the client, over which it queues requests.
import { tmpdir } from 'node:os'
import type { Child } from '../../test/helpers/child.js'
import { freePort } from '../../test/helpers/free-port.js'
import { descendantsOf } from '../cpu.js'
import { progress } from '../cell.js'
import { lastLine, type ProcessGroup } from '../processes.js'
import { START_TIMEOUT_MS, waitUntilTunnelled, type Peer, type RunningPeer } from './peer.js'
import { findExecutable, runCommand } from './system-tools.js'

/** The pipenet release measured (its CLI flags were read from this version's `--help`). */
export const PIPENET_VERSION = '1.4.3'
const NPX_ARGS = ['-y', '-p', 'node@22', '-p', `pipenet@${PIPENET_VERSION}`, '--']
const SUBDOMAIN = 'abcd'

let npx = ''
const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' }

export const pipenetTunnel: Peer = {
  id: 'pipenet',
  label: 'pipenet',

  async prepare() {
    const found = findExecutable('npx')
    if (!found) return { ready: false, reason: 'npx not found (it comes with npm)' }
    npx = found
    progress(`  npx ${NPX_ARGS.join(' ')} pipenet --help (the first run downloads them) …\n`)
    const run = (args: string[]) => runCommand(npx, [...NPX_ARGS, ...args], 300_000, env)
    // `pipenet --version` answers "unknown"; the version is the one npx was asked for.
    const pipenet = await run(['pipenet', '--help'])
    if (!pipenet.ok) return { ready: false, reason: `npx could not run pipenet: ${pipenet.error}` }
    const node = await run(['node', '--version'])
    const nodeVersion = node.ok ? ` on Node ${node.stdout.trim()}` : ''
    return { ready: true, version: `pipenet ${PIPENET_VERSION}${nodeVersion}` }
  },

  async start(group: ProcessGroup, originPort: number): Promise<RunningPeer> {
    const children: Child[] = []
    const stop = async () => {
      for (const child of [...children].reverse()) await group.stop(child)
    }
    const spawn = (name: string, args: string[]) => {
      const child = group.start(name, npx, [...NPX_ARGS, 'pipenet', ...args], {
        env,
        cwd: tmpdir(),
      })
      children.push(child)
      return child
    }
    try {
      const port = await freePort()
      const server = spawn('pipenet server', [
        'server',
        '--port',
        String(port),
        '--address',
        '127.0.0.1',
        '--domain',
        'localhost',
      ])
      await server.waitFor(/listening on port/, START_TIMEOUT_MS).catch(() => {
        throw new Error(`server did not listen: ${lastLine(server)}`)
      })
      const client = spawn('pipenet client', [
        'client',
        '--port',
        String(originPort),
        '--local-host',
        '127.0.0.1',
        '--host',
        `http://localhost:${port}`,
        '--subdomain',
        SUBDOMAIN,
      ])
      const origin = `http://${SUBDOMAIN}.localhost:${port}`
      await waitUntilTunnelled(origin, children)
      // npx runs npm, which runs pipenet under Node 22: count the whole tree of each.
      const tree = (child: Child) => () => [child.proc.pid!, ...descendantsOf(child.proc.pid!)]
      return {
        origin,
        cpu: [
          { label: 'pipenet-srv', pids: tree(server) },
          { label: 'pipenet-cli', pids: tree(client) },
        ],
        stop,
      }
    } catch (err) {
      await stop()
      throw err
    }
  },
}
