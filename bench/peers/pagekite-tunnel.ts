// The PageKite peer (Debian's `pagekite`, pagekite.py): a front end (`--isfrontend`) listening
// for HTTP on a free port and accepting kites under *.bench.test with a throwaway secret, and a
// back end (`--service_on`) that connects to it and serves abcd.bench.test from the origin. Calls
// go to the front end with `Host: abcd.bench.test`. Both run with `--clean` (no configuration file
// read or written), log to standard output (a few lines per connection) and `--nozchunks`: with
// its default zlib tunnel compression, the front end of Debian's 1.5.2 died on the first 10 MiB
// response ("BugFoundError: Too much data"), and this bench's payloads compress unrealistically.
import { randomBytes } from 'node:crypto'
import type { Child } from '../../test/helpers/child.js'
import { freePort } from '../../test/helpers/free-port.js'
import { lastLine, type ProcessGroup } from '../processes.js'
import { waitUntilTunnelled, type Peer, type RunningPeer } from './peer.js'
import { findExecutable, findOrInstall, runCommand } from './system-tools.js'

const KITE = 'abcd.bench.test'
const COMMON = ['--clean', '--nullui', '--nocrashreport', '--nozchunks', '--logfile=stdio']

let pagekite = ''

export const pagekiteTunnel: Peer = {
  id: 'pagekite',
  label: 'PageKite',

  async prepare() {
    const found = await findOrInstall([{ name: 'pagekite', debianPackage: 'pagekite' }])
    if ('reason' in found) return { ready: false, reason: found.reason }
    pagekite = found.paths.pagekite!
    // pagekite.py has no plain version flag; Debian's package database knows it.
    const dpkg = findExecutable('dpkg-query')
    const version = dpkg
      ? await runCommand(dpkg, ['-W', '-f', '${Version}', 'pagekite'], 10_000)
      : null
    return { ready: true, version: version?.ok ? `pagekite ${version.stdout.trim()}` : 'pagekite' }
  },

  async start(group: ProcessGroup, originPort: number): Promise<RunningPeer> {
    const secret = randomBytes(12).toString('hex')
    const children: Child[] = []
    const stop = async () => {
      for (const child of [...children].reverse()) await group.stop(child)
    }
    try {
      const port = await freePort()
      const front = group.start('pagekite front end', pagekite, [
        ...COMMON,
        '--isfrontend',
        '--host=127.0.0.1',
        `--ports=${port}`,
        '--protos=http',
        `--domain=http:*.bench.test:${secret}`,
      ])
      children.push(front)
      await front.waitFor(/listen=127\.0\.0\.1:\d+/, 10_000).catch(() => {
        throw new Error(`front end did not listen: ${lastLine(front)}`)
      })
      const back = group.start('pagekite back end', pagekite, [
        ...COMMON,
        `--frontend=127.0.0.1:${port}`,
        `--service_on=http:${KITE}:127.0.0.1:${originPort}:${secret}`,
      ])
      children.push(back)
      const origin = `http://${KITE}:${port}`
      await waitUntilTunnelled(origin, children)
      return {
        origin,
        cpu: [
          { label: 'pagekite-fe', pids: () => [front.proc.pid!] },
          { label: 'pagekite-be', pids: () => [back.proc.pid!] },
        ],
        stop,
      }
    } catch (err) {
      await stop()
      throw err
    }
  },
}
