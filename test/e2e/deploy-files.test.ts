/**
 * The example deployment files in deploy/ are read by the real programs that would run them:
 * Debian's nginx checks `deploy/nginx.conf` (with a throwaway certificate in place of the real
 * one), Debian's Caddy adapts `deploy/Caddyfile.cluster` (with its internal issuer in place of
 * the DNS provider module Debian's build lacks), and every `BURROW_*` setting the compose file
 * gives burrowd is one burrowd documents. Docker itself does not run here.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { BURROWD_NODE_FLAGS } from '../../packages/server/src/node-flags.js'
import { ROOT } from '../helpers/stack.js'

const run = promisify(execFile)
const NGINX = '/usr/sbin/nginx'
const CADDY = '/usr/bin/caddy'
const deployFile = (name: string) => readFileSync(join(ROOT, 'deploy', name), 'utf8')

/** The image's command, as its JSON-array CMD lists it. */
function dockerCommand(): string[] {
  const cmd = /^CMD (\[.*\])$/m.exec(deployFile('Dockerfile'))
  assert.ok(cmd, 'the Dockerfile has a CMD in exec form')
  return JSON.parse(cmd[1]!) as string[]
}

describe('deploy/ example files', () => {
  let dir: string

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'burrow-deploy-'))
  })

  after(() => rmSync(dir, { recursive: true, force: true }))

  it('nginx.conf passes nginx -t', { skip: !existsSync(NGINX) && 'needs nginx' }, async () => {
    const cert = join(dir, 'cert.pem')
    const key = join(dir, 'key.pem')
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=tunnels.example.com',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ])
    const site = deployFile('nginx.conf')
      .replace('/etc/ssl/burrow/fullchain.pem', cert)
      .replace('/etc/ssl/burrow/privkey.pem', key)
    assert.notEqual(site, deployFile('nginx.conf'), 'the example names its certificate files')
    writeFileSync(join(dir, 'site.conf'), site)
    for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp))
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  access_log off;
  include ${dir}/site.conf;
}
`,
    )
    const checked = await run(NGINX, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')])
    assert.match(checked.stderr, /test is successful/)
  })

  it(
    'Caddyfile.cluster adapts, balancing two nodes with the /readyz health check',
    {
      skip: !existsSync(CADDY) && 'needs caddy',
    },
    async () => {
      const text = deployFile('Caddyfile.cluster')
      assert.match(text, /dns cloudflare/)
      const file = join(dir, 'Caddyfile')
      writeFileSync(file, text.replace(/dns cloudflare .*/, 'issuer internal'))
      const { stdout } = await run(CADDY, ['adapt', '--config', file, '--adapter', 'caddyfile'], {
        env: { ...process.env, BURROW_ZONE: 'tunnels.example.com' },
      })
      const json = JSON.stringify(JSON.parse(stdout))
      assert.match(json, /"\*\.tunnels\.example\.com"/)
      assert.match(json, /"dial":"burrowd-a:7100"/)
      assert.match(json, /"dial":"burrowd-b:7100"/)
      assert.match(json, /"uri":"\/readyz"/)
      assert.match(json, /"flush_interval":-1/)
      // Idle upstream connections close before burrowd's keep-alive of 65 s does.
      assert.match(json, /"keep_alive":\{"idle_timeout":60000000000\}/)
    },
  )

  it('every way of starting burrowd serve gives node the flags it runs with', () => {
    const flags = BURROWD_NODE_FLAGS.join(' ')
    assert.deepEqual(dockerCommand(), [
      'node',
      ...BURROWD_NODE_FLAGS,
      'packages/server/bin/burrowd.js',
      'serve',
    ])
    assert.match(
      deployFile('burrowd.service'),
      new RegExp(
        `^ExecStart=/usr/bin/node ${flags} packages/server/dist/bin/burrowd\\.js serve$`,
        'm',
      ),
    )
    for (const doc of ['docs/operations.md', 'README.md']) {
      const text = readFileSync(join(ROOT, doc), 'utf8')
      assert.ok(text.includes(`node ${flags} packages/server/dist/bin/burrowd.js serve`), doc)
    }
  })

  it('compose.yaml gives burrowd only documented settings, and time to drain', () => {
    const compose = deployFile('compose.yaml')
    const documented = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')
    const settings = new Set(compose.match(/\bBURROW_[A-Z0-9_]+(?=:)/g) ?? [])
    assert.ok(settings.size >= 8)
    for (const name of settings) {
      assert.match(documented, new RegExp(`\`${name}\``), `${name} is not in configuration.md`)
    }
    assert.match(compose, /BURROW_NODE_URL: http:\/\/burrowd-a:7100/)
    assert.match(compose, /BURROW_NODE_URL: http:\/\/burrowd-b:7100/)
    assert.match(compose, /BURROW_BILLING_PROVIDER: paddle/, 'the dev provider is one node only')
    const grace = /stop_grace_period: (\d+)s/.exec(compose)
    assert.ok(grace && Number(grace[1]) > 10, 'docker stops a node before its 10 s drain ends')
    const cmd = dockerCommand()
    const script = cmd.find((arg) => arg.endsWith('.js'))
    assert.ok(script && existsSync(join(ROOT, script)), 'the image runs a file of the repository')
    assert.ok(existsSync(join(ROOT, 'deploy/Dockerfile.caddy')))
    assert.match(compose, /BURROW_SERVICE_HOST:/, 'the dashboard on a domain of its own')
    assert.match(compose, /BURROW_TRUSTED_PROXIES: 172\.29\.0\.10\n/, 'only Caddy is trusted')
    // Secrets in deploy/.env reach neither the image nor git.
    const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    assert.match(dockerignore, /^\*\*\/\.env$/m)
    assert.match(readFileSync(join(ROOT, '.gitignore'), 'utf8'), /^\.env$/m)
  })
})
