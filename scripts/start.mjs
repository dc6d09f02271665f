#!/usr/bin/env node
// `npm start`: the whole thing on one machine. Starts burrowd on SQLite (data in ./.burrow/), creates
// a demo account (with a generated dashboard password) and tunnel on the first run (kept in
// ./.burrow/demo.json so later runs reuse the same URL and sign-in), and exposes the bundled
// example MCP server (stdio) through `burrow up`. Ctrl-C stops both cleanly.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dataDir = process.env.BURROW_DATA_DIR ?? join(root, '.burrow')
const listen = process.env.BURROW_LISTEN ?? '127.0.0.1:7100'
const burrowd = join(root, 'packages/server/dist/bin/burrowd.js')
const burrow = join(root, 'packages/cli/dist/bin/burrow.js')
const demoFile = join(dataDir, 'demo.json')
const env = { ...process.env, BURROW_DATA_DIR: dataDir, BURROW_LISTEN: listen }

const demoEmail = 'demo@localhost.test'

function operator(args, input) {
  return JSON.parse(
    execFileSync(process.execPath, [burrowd, ...args, '--json'], {
      env,
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  )
}

function demoTunnel() {
  if (existsSync(demoFile)) return JSON.parse(readFileSync(demoFile, 'utf8'))
  mkdirSync(dataDir, { recursive: true })
  let password = randomBytes(12).toString('base64url')
  try {
    operator(
      ['account', 'create', '--email', demoEmail, '--slug', 'demo', '--password-stdin'],
      `${password}\n`,
    )
  } catch {
    // The account exists from an earlier run whose demo.json was removed: make a new tunnel;
    // its password is whatever it was (reset it with "Forgot password?").
    password = null
  }
  const tunnel = operator([
    'tunnel',
    'create',
    '--account',
    'demo',
    '--name',
    'hello',
    // The demo is for trying Burrow from this machine; tunnels users make sign agents in.
    '--access',
    'public',
  ])
  const demo = { ...tunnel, email: demoEmail, password }
  writeFileSync(demoFile, JSON.stringify(demo, null, 2), { mode: 0o600 })
  return demo
}

const tunnel = demoTunnel()
// Both children get process groups of their own, so a terminal's Ctrl-C reaches this script
// alone and each child is told to stop once, in order: burrow up first, then burrowd. (A second
// signal would cut burrowd's graceful stop short.)
const { BURROWD_NODE_FLAGS } = await import(
  new URL('../packages/server/dist/node-flags.js', import.meta.url).href
)
const service = spawn(process.execPath, [...BURROWD_NODE_FLAGS, burrowd, 'serve'], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
})
/** Each whole line burrowd writes to `stream`, marked as its own, to `out`; `onLine` sees it. */
function prefixLines(stream, out, onLine = () => {}) {
  let partial = ''
  stream.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n')
    partial = lines.pop()
    for (const line of lines) {
      out.write(`[burrowd] ${line}\n`)
      onLine(line)
    }
  })
  stream.on('end', () => {
    if (partial !== '') out.write(`[burrowd] ${partial}\n`)
  })
}

prefixLines(service.stderr, process.stderr)
let client = null
let stopping = false
// The dashboard's address as burrowd names it (its service host): the one its mail links and
// sign-in cookies use.
let dashboard = `http://${listen}/`

prefixLines(service.stdout, process.stdout, (line) => {
  const named = /dashboard at (\S+)/.exec(line)
  if (named) dashboard = named[1]
  if (client || !line.includes('burrowd listening')) return
  client = spawn(
    process.execPath,
    [
      burrow,
      '--broker',
      `ws://${listen}`,
      'up',
      '--stdio',
      `node ${join(root, 'examples/hello-server.mjs')}`,
      '--name',
      'hello',
    ],
    {
      env: { ...env, BURROW_API_KEY: tunnel.key },
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    },
  )
  client.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`burrow exited (${code}); stopping burrowd\n`)
      stop()
    }
  })
  setTimeout(() => {
    process.stdout.write(
      `\nTry it from another terminal:\n` +
        `  curl -s ${tunnel.public_url}/mcp -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\\n` +
        `    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'\n` +
        `(curl and browsers resolve *.localhost to this machine; where a tool does not, add "127.0.0.1 ${new URL(tunnel.public_url).hostname}" to /etc/hosts.)\n` +
        `Dashboard: ${dashboard} (sign up to create your own tunnels; plans use a local dev checkout)\n` +
        (tunnel.password
          ? `  The demo account signs in as ${tunnel.email} with password ${tunnel.password}\n`
          : `  The demo account is ${demoEmail}; use "Forgot password?" to set its password (without\n` +
            `  BURROW_SMTP_URL the email shows at ${dashboard}dev/outbox)\n`) +
        `The demo tunnel is on the Free plan: 3 sessions in use at once; sessions left idle give\n` +
        `their place to new clients.\n` +
        `Press Ctrl-C to stop.\n`,
    )
  }, 1500).unref()
})

service.on('exit', (code) => {
  if (!stopping) {
    process.stderr.write(
      code === 1
        ? `burrowd could not start (it says why above; another port: BURROW_LISTEN=127.0.0.1:7200)\n`
        : `burrowd exited (${code})\n`,
    )
    stopping = true
    client?.kill('SIGTERM')
    process.exitCode = 1
  }
})

/** Stop burrow up, then burrowd, each told once with the signal this script got. */
function stop(signal = 'SIGTERM') {
  if (stopping) return
  stopping = true
  const done = () => service.kill(signal)
  if (client && client.exitCode === null) {
    client.once('exit', done)
    client.kill(signal)
  } else done()
}

process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))
// Never leave the children behind, whatever ends this process.
process.on('exit', () => {
  for (const child of [client, service]) if (child && child.exitCode === null) child.kill('SIGKILL')
})
