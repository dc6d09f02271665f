// burrow's command line and environment: every global option, precedence, and clear errors.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { UsageError } from '../src/cli-errors.js'
import { parseCli } from '../src/config.js'

const KEY = 'mtk_abc'
const up = (argv: string[], env: Record<string, string> = {}) => {
  const cmd = parseCli(argv, env)
  assert.equal(cmd.command, 'up')
  if (cmd.command !== 'up') throw new Error('not up')
  return cmd
}
const usage = (argv: string[], pattern: RegExp, env: Record<string, string> = {}) =>
  assert.throws(
    () => parseCli(argv, env),
    (e: unknown) => e instanceof UsageError && pattern.test(e.message),
  )

describe('parseCli', () => {
  it('defaults', () => {
    const { global, up: u } = up(['up', '--stdio', 'node server.js'])
    assert.equal(global.broker, 'ws://127.0.0.1:7100')
    assert.equal(global.apiKey, null)
    assert.equal(global.logLevel, 'info')
    assert.equal(global.updateCheck, true)
    assert.equal(global.telemetry, true)
    assert.equal(u.drainGraceSecs, 10)
    assert.deepEqual(u.upstreams, [{ kind: 'stdio', name: null, command: 'node server.js' }])
  })

  it('flags win over environment; environment applies otherwise', () => {
    const env = { BURROW_BROKER: 'wss://env.example', BURROW_API_KEY: 'mtk_env' }
    assert.equal(
      up(['up', '--upstream', 'http://127.0.0.1:1/mcp'], env).global.broker,
      'wss://env.example',
    )
    assert.equal(up(['up', '--upstream', 'http://127.0.0.1:1/mcp'], env).global.apiKey, 'mtk_env')
    const flagged = up(
      ['--broker', 'ws://flag:1', '--api-key', KEY, 'up', '--upstream', 'http://127.0.0.1:1/mcp'],
      env,
    )
    assert.equal(flagged.global.broker, 'ws://flag:1')
    assert.equal(flagged.global.apiKey, KEY)
  })

  it('global options may come after the command', () => {
    assert.equal(up(['up', '--stdio', 'x', '--api-key', KEY]).global.apiKey, KEY)
  })

  it('-v, -vv, -vvv and BURROW_LOG winning', () => {
    assert.equal(up(['-v', 'up', '--stdio', 'x']).global.logLevel, 'debug')
    assert.equal(up(['-vv', 'up', '--stdio', 'x']).global.logLevel, 'debug')
    assert.equal(up(['-vvv', 'up', '--stdio', 'x']).global.logLevel, 'trace')
    assert.equal(up(['-vvv', 'up', '--stdio', 'x'], { BURROW_LOG: 'warn' }).global.logLevel, 'warn')
    usage(['up', '--stdio', 'x'], /BURROW_LOG="loud"/, { BURROW_LOG: 'loud' })
  })

  it('--no-update-check, --no-telemetry and their variables', () => {
    const g = up(['--no-update-check', '--no-telemetry', 'up', '--stdio', 'x']).global
    assert.equal(g.updateCheck, false)
    assert.equal(g.telemetry, false)
    const e = up(['up', '--stdio', 'x'], {
      BURROW_NO_UPDATE_CHECK: '1',
      BURROW_NO_TELEMETRY: 'true',
    }).global
    assert.equal(e.updateCheck, false)
    assert.equal(e.telemetry, false)
    assert.equal(up(['up', '--stdio', 'x'], { BURROW_NO_TELEMETRY: '0' }).global.telemetry, true)
    usage(['up', '--stdio', 'x'], /BURROW_NO_TELEMETRY="maybe" is not a yes\/no value/, {
      BURROW_NO_TELEMETRY: 'maybe',
    })
  })

  it('up with no upstream flag means auto-detect; detect takes --config and --json', () => {
    assert.deepEqual(up(['up']).up.upstreams, [])
    const d = parseCli(['detect', '--json', '--config', 'a.json', '--config', 'b.json'], {})
    assert.ok(d.command === 'detect')
    assert.deepEqual(d.detect, { configPaths: ['a.json', 'b.json'], json: true })
    usage(['detect', '--stdio', 'x'], /--stdio does not apply to "burrow detect"/)
    usage(['up', '--json'], /--json does not apply to "burrow up"/)
  })

  it('inspector and metrics flags', () => {
    const plain = up(['up', '--stdio', 'x']).up
    assert.equal(plain.inspect.enabled, false)
    assert.equal(plain.metricsAddr, null)
    const admin = up(['up', '--stdio', 'x', '--inspect-admin']).up.inspect
    assert.deepEqual(
      [admin.enabled, admin.admin, admin.addr, admin.addrExplicit],
      [true, true, '127.0.0.1:4040', false],
    )
    const viaEnv = up(['up', '--stdio', 'x'], {
      BURROW_INSPECT_ADDR: '127.0.0.1:5050',
      BURROW_INSPECT_TOKEN: 'fixed-token-0123456789ab',
      BURROW_METRICS_ADDR: '127.0.0.1:9464',
    }).up
    assert.deepEqual(
      [
        viaEnv.inspect.enabled,
        viaEnv.inspect.addr,
        viaEnv.inspect.addrExplicit,
        viaEnv.inspect.token,
      ],
      [true, '127.0.0.1:5050', true, 'fixed-token-0123456789ab'],
    )
    assert.equal(viaEnv.metricsAddr, '127.0.0.1:9464')
    usage(
      ['up', '--stdio', 'x', '--metrics-addr', 'nowhere'],
      /--metrics-addr "nowhere" must be HOST:PORT/,
    )
    usage(
      ['up', '--stdio', 'x'],
      /BURROW_INSPECT_TOKEN must be 22-128 characters long \(it has 5\)/,
      {
        BURROW_INSPECT_TOKEN: 'short',
      },
    )
  })

  it('--version and --help', () => {
    assert.deepEqual(parseCli(['--version'], {}), { command: 'version' })
    assert.deepEqual(parseCli(['--help'], {}), { command: 'help', topic: 'main' })
    assert.deepEqual(parseCli(['up', '--help'], {}), { command: 'help', topic: 'up' })
    assert.deepEqual(parseCli(['help', 'up'], {}), { command: 'help', topic: 'up' })
    assert.deepEqual(parseCli(['detect', '--help'], {}), { command: 'help', topic: 'detect' })
  })

  it('--name and BURROW_DRAIN_GRACE_SECS', () => {
    const u = up(['up', '--stdio', 'x', '--name', 'My Files'], {
      BURROW_DRAIN_GRACE_SECS: '2.5',
    }).up
    assert.equal(u.name, 'My Files')
    assert.equal(u.drainGraceSecs, 2.5)
    usage(['up', '--stdio', 'x'], /BURROW_DRAIN_GRACE_SECS="soon"/, {
      BURROW_DRAIN_GRACE_SECS: 'soon',
    })
  })

  it('takes an http:// or https:// broker as ws:// or wss:// on the same host and port', () => {
    const broker = (url: string) => up(['--broker', url, 'up', '--stdio', 'x']).global.broker
    assert.equal(broker('http://127.0.0.1:7100'), 'ws://127.0.0.1:7100')
    assert.equal(broker('https://burrow.example.com/'), 'wss://burrow.example.com')
    assert.equal(broker('HTTPS://burrow.example.com:8443'), 'wss://burrow.example.com:8443')
    assert.equal(broker('wss://burrow.example.com'), 'wss://burrow.example.com')
    // A path is refused, not ignored (broker-url.test.ts has the rest).
    usage(['--broker', 'wss://burrow.example.com/x', 'up', '--stdio', 'x'], /has a path \(\/x\)/)
    usage(['up', '--stdio', 'x'], /^--broker "wss:\/\/env\.example\/p" has a path/, {
      BURROW_BROKER: 'wss://env.example/p',
    })
  })

  it('suggests the option or command meant, and the help that lists it', () => {
    usage(
      ['up', '--stdoi', 'x'],
      /^unknown option --stdoi; did you mean --stdio\? \(see "burrow up --help"\)$/,
    )
    usage(['--brokr', 'ws://x', 'detect'], /did you mean --broker\? \(see "burrow --help"\)$/)
    usage(['up', '-stdio', 'x'], /^unknown option -stdio; did you mean --stdio\?/)
    usage(['--api_key=mtk_1', 'up'], /^unknown option --api_key; did you mean --api-key\?/)
    usage(['--verbos'], /did you mean --verbose\? \(see "burrow --help"\)$/)
    usage(['upp'], /^unknown command "upp"; did you mean "up"\?/)
    // Sign-in commands of other tunnel tools: where the key goes instead.
    for (const sub of ['login', 'authtoken']) {
      usage([sub], new RegExp(`^there is no "burrow ${sub}": each tunnel has a key of its own`))
      usage([sub], /--api-key or BURROW_API_KEY/)
    }
    usage(['up', '--broker'], /^--broker needs a value \(see "burrow up --help"\)$/)
    usage(['up', '--inspect=1'], /^--inspect takes no value/)
  })

  it('rejects bad input with messages that say what to do', () => {
    usage([], /missing command/)
    usage(['down'], /unknown command "down"/)
    usage(['up', '--bogus'], /^unknown option --bogus \(see "burrow up --help"\)$/)
    usage(['up', '--stdio', ''], /--stdio needs a value/)
    usage(['up', '--upstream', 'not a url'], /is not a URL/)
    usage(['up', '--upstream', 'ftp://x/mcp'], /http:\/\/ or https:\/\//)
    usage(['--broker', 'ftp://x', 'up', '--stdio', 'x'], /must start with ws:\/\/, wss:\/\//)
    usage(['--api-key', 'sk_123', 'up', '--stdio', 'x'], /must start with "mtk_"/)
    usage(
      ['up', '--stdio', 'npx', 'server'],
      /unexpected argument "server": values with spaces need quotes/,
    )
  })
})
