// Two nginx reverse proxies in a row: the floor of a tunnel that reads HTTP at both ends in native
// code. Beside the Node HTTP floor (bench/fixtures/http-proxy.mjs) it shows how much of what a
// Node proxy costs is reading HTTP at all and how much is Node's HTTP machinery. Each nginx runs
// one worker with keep-alive connections to the next hop and streams both ways without buffering,
// as Burrow does; its configuration, logs and temporary files live in a temporary directory.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Child } from '../test/helpers/child.js'
import { freePort } from '../test/helpers/free-port.js'
import { descendantsOf } from './cpu.js'
import { tempDataDir, type HopPair } from './launch.js'
import { waitUntilTunnelled } from './peers/peer.js'
import { findOrInstall, runCommand } from './peers/system-tools.js'
import type { ProcessGroup } from './processes.js'

let found: Promise<{ path: string; version: string } | { reason: string }> | undefined

/** Find nginx (installing Debian's nginx-light where the run may), once per run. */
function findNginx(): Promise<{ path: string; version: string } | { reason: string }> {
  found ??= (async () => {
    const programs = await findOrInstall([
      { name: 'nginx', dirs: ['/usr/sbin', '/usr/local/sbin'], debianPackage: 'nginx-light' },
    ])
    if ('reason' in programs) return programs
    const path = programs.paths.nginx!
    const version = await runCommand(path, ['-v'], 10_000)
    const text = version.ok ? `${version.stderr}${version.stdout}`.trim() : version.error
    return { path, version: text.replace(/^nginx version:\s*/, '') }
  })()
  return found
}

/** The version line of the nginx this run used, or why it had none. */
export async function nginxSummary(): Promise<string | null> {
  if (!found) return null
  const f = await found
  return 'reason' in f ? `nginx: skipped: ${f.reason}` : `nginx: ${f.version}`
}

/** One nginx proxying every request on `port` to 127.0.0.1:`upstream`. */
export function nginxConfig(dir: string, port: number, upstream: number): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log stderr warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  client_max_body_size 64m;
  keepalive_requests 10000000;
  upstream next { server 127.0.0.1:${upstream}; keepalive 512; keepalive_requests 10000000; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://next;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`
}

/**
 * Start two nginx proxies in a row in front of `targetPort`. Rejects with the reason when nginx
 * is missing or does not pass a call through.
 */
export async function startNginxPair(group: ProcessGroup, targetPort: number): Promise<HopPair> {
  const dir = tempDataDir()
  const children: Child[] = []
  try {
    let upstream = targetPort
    let port = 0
    for (const name of ['inner', 'outer']) {
      port = await freePort()
      const conf = nginxConfig(join(dir.path, name), port, upstream)
      children.unshift(await startNginx(group, dir.path, name, conf))
      await waitUntilTunnelled(`http://127.0.0.1:${port}`, children)
      upstream = port
    }
    return { port, children, pids: nginxPids(children), cleanup: () => dir.remove() }
  } catch (err) {
    for (const child of children) await group.stop(child)
    dir.remove()
    throw err
  }
}

/**
 * Start nginx with configuration `conf` (written to `<dir>/<name>.conf`; `<dir>/<name>` is made
 * for its temporary files). Rejects with the reason when nginx cannot be found or installed.
 */
export async function startNginx(
  group: ProcessGroup,
  dir: string,
  name: string,
  conf: string,
): Promise<Child> {
  const nginx = await findNginx()
  if ('reason' in nginx) throw new Error(nginx.reason)
  mkdirSync(join(dir, name))
  const file = join(dir, `${name}.conf`)
  writeFileSync(file, conf)
  return group.start(`nginx ${name}`, nginx.path, ['-e', 'stderr', '-c', file, '-p', dir])
}

/** The processes of `children` (nginx masters) and of their workers, whose CPU to count. */
export function nginxPids(children: readonly Child[]): number[] {
  // The masters only watch their workers; count both, as one would count a deployed nginx.
  return children.flatMap((c) => [c.proc.pid!, ...descendantsOf(c.proc.pid!)])
}
