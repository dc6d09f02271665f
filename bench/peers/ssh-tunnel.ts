// The OpenSSH peer: remote forwarding (`ssh -R`), the transport sish and many home-made tunnels
// use. A throwaway `sshd` runs as the current user on a free port with its own host key, config
// and authorized_keys in a temporary directory; `ssh -N -R <port>:127.0.0.1:<origin>` logs in to
// it with a throwaway key, and calls go to 127.0.0.1:<port>, which sshd listens on and forwards
// through the SSH connection to the client, which connects to the origin.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import type { Child } from '../../test/helpers/child.js'
import { freePort } from '../../test/helpers/free-port.js'
import { descendantsOf } from '../cpu.js'
import { tempDataDir } from '../launch.js'
import { lastLine, type ProcessGroup } from '../processes.js'
import { waitUntilTunnelled, type Peer, type RunningPeer } from './peer.js'
import { findOrInstall, runCommand } from './system-tools.js'

let paths: Record<string, string> = {}

export const sshTunnel: Peer = {
  id: 'ssh',
  label: 'ssh -R',

  async prepare() {
    const found = await findOrInstall([
      {
        name: 'sshd',
        dirs: ['/usr/sbin', '/usr/local/sbin', '/sbin'],
        debianPackage: 'openssh-server',
      },
      { name: 'ssh', debianPackage: 'openssh-client' },
      { name: 'ssh-keygen', debianPackage: 'openssh-client' },
    ])
    if ('reason' in found) return { ready: false, reason: found.reason }
    paths = found.paths
    const version = await runCommand(paths.ssh!, ['-V'], 10_000)
    const text = version.ok ? `${version.stderr}${version.stdout}` : version.error
    return { ready: true, version: text.split(',')[0]!.trim() }
  },

  async start(group: ProcessGroup, originPort: number): Promise<RunningPeer> {
    const dir = tempDataDir()
    const children: Child[] = []
    const stop = async () => {
      const sshd = children[0]
      // sshd serves each connection in a child of its own session: collect them before stopping.
      const leftovers = sshd?.proc.pid ? descendantsOf(sshd.proc.pid) : []
      for (const child of [...children].reverse()) await group.stop(child)
      for (const pid of leftovers) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // Already gone.
        }
      }
      dir.remove()
    }
    try {
      for (const key of ['host_key', 'client_key']) {
        const made = await runCommand(
          paths['ssh-keygen']!,
          ['-q', '-t', 'ed25519', '-N', '', '-C', 'burrow-bench', '-f', join(dir.path, key)],
          30_000,
        )
        if (!made.ok) throw new Error(`ssh-keygen: ${made.error}`)
      }
      const sshdPort = await freePort()
      const config = join(dir.path, 'sshd_config')
      writeFileSync(config, sshdConfig(dir.path, sshdPort))
      writeFileSync(
        join(dir.path, 'authorized_keys'),
        readFileSync(join(dir.path, 'client_key.pub'), 'utf8'),
        { mode: 0o600 },
      )
      const sshd = await startSshd(group, config)
      children.push(sshd)

      const port = await freePort()
      const client = group.start('ssh -R', paths.ssh!, [
        '-N',
        '-F',
        '/dev/null',
        '-i',
        join(dir.path, 'client_key'),
        '-o',
        'IdentitiesOnly=yes',
        '-o',
        'StrictHostKeyChecking=no',
        '-o',
        'UserKnownHostsFile=/dev/null',
        '-o',
        'BatchMode=yes',
        '-o',
        'ExitOnForwardFailure=yes',
        '-o',
        'LogLevel=ERROR',
        '-R',
        `${port}:127.0.0.1:${originPort}`,
        '-p',
        String(sshdPort),
        '-l',
        userInfo().username,
        '127.0.0.1',
      ])
      children.push(client)
      const origin = `http://127.0.0.1:${port}`
      await waitUntilTunnelled(origin, children)
      const sshdPid = sshd.proc.pid!
      return {
        origin,
        cpu: [
          { label: 'sshd', pids: () => [sshdPid, ...descendantsOf(sshdPid)] },
          { label: 'ssh', pids: () => [client.proc.pid!] },
        ],
        stop,
      }
    } catch (err) {
      await stop()
      throw err
    }
  },
}

/** A config for a throwaway sshd: key login only, for the current user, remote forwarding on. */
function sshdConfig(dir: string, port: number): string {
  return [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_key')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    // The key files live in a temporary directory that sshd's owner checks would refuse.
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'AllowTcpForwarding remote',
    'X11Forwarding no',
    'PermitTTY no',
    'LogLevel INFO',
    '',
  ].join('\n')
}

/**
 * Start sshd in the foreground (`-D -e`) and wait until it listens. As root, sshd insists on its
 * privilege separation directory (created by the package's service, which may never have run):
 * when it names it missing, create it and try once more.
 */
async function startSshd(group: ProcessGroup, config: string): Promise<Child> {
  for (let attempt = 0; ; attempt++) {
    const child = group.start('sshd', paths.sshd!, ['-D', '-e', '-f', config])
    try {
      await child.waitFor(/Server listening on/, 10_000)
      return child
    } catch {
      await group.stop(child)
      const missing = /Missing privilege separation directory: (\S+)/.exec(child.stderr)
      if (attempt > 0 || !missing || process.getuid?.() !== 0) {
        throw new Error(`sshd did not start: ${lastLine(child)}`)
      }
      mkdirSync(missing[1]!, { recursive: true, mode: 0o755 })
    }
  }
}
