// burrowd behind nginx, as deploy/nginx.conf puts it (the proxy settings of its `location /`),
// with the connections from nginx to burrowd kept alive (`keepalive` in the upstream block, no
// Connection header: that file now) against made per request (`Connection: close` upstream:
// that file before 2026-11-28). Small calls through the tunnel, interleaved rounds, with burrowd's and
// nginx's CPU per call (docs/benchmarks.md, "Behind the front proxy").
//   node --no-memory-reducer --import tsx bench/front-proxy.ts [<concurrency> [<rounds> [<seconds>]]]
import { cpuSeconds } from './cpu.js'
import {
  createTunnels,
  FIXTURES,
  startBurrowd,
  startBurrowUp,
  startFixture,
  tempDataDir,
} from './launch.js'
import { runLoad } from './load.js'
import { warnWithoutLoadGeneratorFlag } from './load-generator-flags.js'
import { nginxPids, startNginx } from './nginx-proxies.js'
import { waitUntilTunnelled } from './peers/peer.js'
import { ProcessGroup } from './processes.js'
import { cellArgs } from './script-args.js'
import { CALL_HEADERS } from './sections/small-calls.js'
import { freePort } from '../test/helpers/free-port.js'
import { burrowdLocation, nginxTempPaths } from '../test/helpers/nginx-front.js'

const [concurrency, rounds, seconds] = cellArgs('bench/front-proxy.ts', [50, 3, 4])

/** nginx on `port` in front of burrowd on `burrowdPort`, keeping its connections alive or not. */
function frontConfig(dir: string, port: number, burrowdPort: number, keepAlive: boolean): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 8192; }
http {
  access_log off;
${nginxTempPaths(dir)}
  map $http_upgrade $connection_upgrade { default upgrade; '' ${keepAlive ? "''" : 'close'}; }
  upstream burrowd { server 127.0.0.1:${burrowdPort};${keepAlive ? ' keepalive 64;' : ''} }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 8m;
${burrowdLocation('1h')}
  }
}
`
}

warnWithoutLoadGeneratorFlag()
const group = new ProcessGroup()
const data = tempDataDir()
try {
  const server = await startFixture(group, FIXTURES.rpcHttp)
  const [key] = await createTunnels(data.path, ['rpc'])
  const burrowd = await startBurrowd(group, data.path)
  const burrowdPort = Number(new URL(burrowd.broker).port)
  const client = await startBurrowUp(group, burrowd.broker, key!, [
    '--upstream',
    `http://127.0.0.1:${server.port}/mcp`,
  ])
  const host = new URL(client.url).hostname
  const fronts = []
  for (const [name, keepAlive] of [
    ['a connection per request', false],
    ['connections kept alive (deploy/nginx.conf)', true],
  ] as const) {
    const port = await freePort()
    const dir = `${data.path}/${keepAlive ? 'kept' : 'per-request'}`
    const child = await startNginx(
      group,
      data.path,
      keepAlive ? 'kept' : 'per-request',
      frontConfig(dir, port, burrowdPort, keepAlive),
    )
    const origin = `http://${host}:${port}`
    await waitUntilTunnelled(origin, [child])
    fronts.push({ name, url: `${origin}/mcp`, pids: nginxPids([child]) })
  }
  for (const front of fronts) {
    await runLoad(
      { url: front.url, headers: CALL_HEADERS },
      { concurrency: 50, warmupMs: 0, durationMs: 3000 },
    )
  }
  const cpu = (pids: readonly number[]) =>
    pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0)
  for (let round = 1; round <= rounds; round++) {
    for (const front of fronts) {
      const before = { burrowd: cpu([burrowd.pid]), nginx: cpu(front.pids) }
      const began = performance.now()
      const result = await runLoad(
        { url: front.url, headers: CALL_HEADERS },
        { concurrency, warmupMs: 500, durationMs: seconds * 1000 },
      )
      // CPU over the whole cell (warm-up included) per call made at the cell's rate.
      const calls = (result.callsPerSecond * (performance.now() - began)) / 1000
      const us = (now: number, then: number) => (((now - then) * 1e6) / calls).toFixed(1)
      process.stdout.write(
        `round ${round}, c=${concurrency}: ${front.name.padEnd(44)} ` +
          `${Math.round(result.callsPerSecond).toString().padStart(6)} calls/s, ` +
          `p50 ${result.p50Ms.toFixed(3)} ms, burrowd ${us(cpu([burrowd.pid]), before.burrowd)} µs/call, ` +
          `nginx ${us(cpu(front.pids), before.nginx)} µs/call, ${result.errors} errors\n`,
      )
    }
  }
} finally {
  await group.stopAll()
  data.remove()
}
