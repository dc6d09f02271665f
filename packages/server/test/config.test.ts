/**
 * Tests of `loadConfig`: defaults, every accepted form of each BURROW_* variable, and the
 * ConfigError a user sees for bad values.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'
import type { Env } from '../src/config.js'
import { brokerUrlFor, serviceUrlFor } from '../src/public-url.js'

const CWD = '/srv/burrow'

function load(env: Env) {
  return loadConfig(env, CWD)
}

/** Assert that `env` is refused with a ConfigError naming `variable` and `fragment`. */
function refuses(env: Env, variable: string, fragment: string): void {
  assert.throws(
    () => load(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`)
      assert.equal(error.code, 'config')
      assert.equal(error.variable, variable)
      assert.match(error.message, new RegExp(`^${variable}=`))
      assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`)
      return true
    },
  )
}

describe('loadConfig', () => {
  it('uses the documented defaults for an empty environment', () => {
    const config = load({})
    assert.deepEqual(config, {
      listen: { host: '127.0.0.1', port: 7100 },
      zone: 'localhost',
      serviceHost: 'localhost',
      publicScheme: 'http',
      publicPort: 7100,
      dataDir: '/srv/burrow/.burrow',
      databaseUrl: null,
      databaseTimeoutSecs: 15,
      maxBodyBytes: 4194304,
      resumeGraceSecs: 30,
      queueWaitMs: 5000,
      heartbeatSecs: 15,
      memoryReleaseSecs: 60,
      logLevel: 'info',
      clientLatestVersion: null,
      clientDownloadUrl: null,
      webhooksAllowPrivate: false,
      billing: { provider: 'dev' },
      redisUrl: null,
      quotas: true,
      sessionIdleSecs: 300,
      meterSnapshotSecs: 60,
      trustedProxies: ['127.0.0.0/8', '::1/128'],
      metricsToken: null,
      nodeUrl: null,
      dnsServers: [],
      mail: { smtpUrl: null, from: 'Burrow <no-reply@localhost>' },
    })
  })

  it('reads the DNS servers that check custom domains, and refuses names and bad ports', () => {
    assert.deepEqual(
      load({ BURROW_DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,[::1]:53,2606:4700:4700::1111' })
        .dnsServers,
      ['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '2606:4700:4700::1111'],
    )
    for (const bad of [
      'dns.example.com',
      '127.0.0.1:0',
      '127.0.0.1:99999',
      '[1.2.3.4]:53',
      ':53',
    ]) {
      assert.throws(() => load({ BURROW_DNS_SERVERS: bad }), /BURROW_DNS_SERVERS/, bad)
    }
  })

  it('reads the SMTP URL and From address, and refuses what is neither', () => {
    const mail = load({
      BURROW_SMTP_URL: 'smtp://user:pw@mail.example.com:2525',
      BURROW_MAIL_FROM: 'Acme Tunnels <tunnels@acme.example>',
    }).mail
    assert.deepEqual(mail, {
      smtpUrl: 'smtp://user:pw@mail.example.com:2525',
      from: 'Acme Tunnels <tunnels@acme.example>',
    })
    assert.equal(
      load({ BURROW_SMTP_URL: 'smtps://mail.example.com' }).mail.smtpUrl,
      'smtps://mail.example.com',
    )
    refuses({ BURROW_SMTP_URL: 'http://mail.example.com' }, 'BURROW_SMTP_URL', 'smtp://')
    refuses({ BURROW_SMTP_URL: 'not a url' }, 'BURROW_SMTP_URL', 'smtp://')
    assert.throws(
      () => load({ BURROW_SMTP_URL: 'imap://u:secret@h' }),
      (e: Error) => !e.message.includes('secret'),
    )
    refuses({ BURROW_MAIL_FROM: 'nobody' }, 'BURROW_MAIL_FROM', 'an address')
    refuses({ BURROW_MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' }, 'BURROW_MAIL_FROM', 'an address')
  })

  it('reads trusted proxies as addresses and CIDR blocks, or none', () => {
    assert.deepEqual(
      load({ BURROW_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7,fd00::/8' }).trustedProxies,
      ['10.0.0.0/8', '192.0.2.7', 'fd00::/8'],
    )
    assert.deepEqual(load({ BURROW_TRUSTED_PROXIES: 'none' }).trustedProxies, [])
    assert.throws(
      () => load({ BURROW_TRUSTED_PROXIES: '10.0.0.0/8,proxy.local' }),
      /BURROW_TRUSTED_PROXIES.*"proxy\.local" is neither/,
    )
  })

  it('returns a deeply frozen object', () => {
    const config = load({})
    assert.ok(Object.isFrozen(config))
    assert.ok(Object.isFrozen(config.listen))
    assert.throws(() => {
      ;(config.listen as { port: number }).port = 1
    }, TypeError)
  })

  it('reads process.env by default', () => {
    const before = process.env.BURROW_HEARTBEAT_SECS
    process.env.BURROW_HEARTBEAT_SECS = '42'
    try {
      assert.equal(loadConfig().heartbeatSecs, 42)
    } finally {
      if (before === undefined) delete process.env.BURROW_HEARTBEAT_SECS
      else process.env.BURROW_HEARTBEAT_SECS = before
    }
  })

  it('treats empty and blank variables as unset', () => {
    const config = load({ BURROW_LISTEN: '', BURROW_ZONE: '  ', BURROW_DATABASE_URL: '' })
    assert.deepEqual(config.listen, { host: '127.0.0.1', port: 7100 })
    assert.equal(config.zone, 'localhost')
    assert.equal(config.databaseUrl, null)
  })

  describe('BURROW_LISTEN', () => {
    it('accepts host:port, port 0, hostnames and bracketed IPv6', () => {
      assert.deepEqual(load({ BURROW_LISTEN: '0.0.0.0:80' }).listen, { host: '0.0.0.0', port: 80 })
      assert.deepEqual(load({ BURROW_LISTEN: '127.0.0.1:0' }).listen, {
        host: '127.0.0.1',
        port: 0,
      })
      assert.deepEqual(load({ BURROW_LISTEN: 'localhost:9' }).listen, {
        host: 'localhost',
        port: 9,
      })
      assert.deepEqual(load({ BURROW_LISTEN: '[::1]:7100' }).listen, { host: '::1', port: 7100 })
      assert.deepEqual(load({ BURROW_LISTEN: '[::]:65535' }).listen, { host: '::', port: 65535 })
    })

    it('refuses malformed addresses and says what is accepted', () => {
      for (const value of [
        'nope',
        '7100',
        ':7100',
        '127.0.0.1',
        '127.0.0.1:',
        '127.0.0.1:65536',
        '127.0.0.1:-1',
        '127.0.0.1:7100x',
        '::1:7100',
        '[::1]',
        '[localhost]:7100',
        'bad host:7100',
      ]) {
        refuses({ BURROW_LISTEN: value }, 'BURROW_LISTEN', `"${value}"`)
      }
      refuses({ BURROW_LISTEN: 'nope' }, 'BURROW_LISTEN', '[::1]:7100')
    })
  })

  describe('BURROW_ZONE and the public URL parts', () => {
    it('lower-cases the zone and defaults to https without a port for a real domain', () => {
      const config = load({ BURROW_ZONE: 'Tunnels.Example.COM' })
      assert.equal(config.zone, 'tunnels.example.com')
      assert.equal(config.publicScheme, 'https')
      assert.equal(config.publicPort, null)
    })

    it('treats *.localhost zones like localhost', () => {
      const config = load({ BURROW_ZONE: 'dev.localhost', BURROW_LISTEN: '127.0.0.1:8080' })
      assert.equal(config.publicScheme, 'http')
      assert.equal(config.publicPort, 8080)
    })

    it('lets the scheme and port be set explicitly', () => {
      const config = load({
        BURROW_ZONE: 'example.com',
        BURROW_PUBLIC_SCHEME: 'HTTP',
        BURROW_PUBLIC_PORT: '8443',
      })
      assert.equal(config.publicScheme, 'http')
      assert.equal(config.publicPort, 8443)
    })

    it('keeps a public port of 0 when it follows a listen port of 0', () => {
      assert.equal(load({ BURROW_LISTEN: '127.0.0.1:0' }).publicPort, 0)
      assert.equal(load({ BURROW_LISTEN: '127.0.0.1:0', BURROW_PUBLIC_PORT: '80' }).publicPort, 80)
    })

    it('serves the dashboard at the zone, or at a host of its own', () => {
      assert.equal(load({ BURROW_ZONE: 'tunnels.example.com' }).serviceHost, 'tunnels.example.com')
      const own = load({
        BURROW_ZONE: 'burrow-tunnels.example',
        BURROW_SERVICE_HOST: 'Burrow.Example',
      })
      assert.equal(own.serviceHost, 'burrow.example')
      assert.equal(serviceUrlFor(own), 'https://burrow.example')
      assert.equal(brokerUrlFor(own), 'wss://burrow.example')
      assert.equal(brokerUrlFor(load({})), 'ws://localhost:7100')
      for (const value of [
        'https://burrow.example',
        'burrow.example:443',
        '10.0.0.1',
        'a--b.localhost',
      ]) {
        refuses({ BURROW_SERVICE_HOST: value }, 'BURROW_SERVICE_HOST', `"${value}"`)
      }
    })

    it('refuses bad zones, schemes and ports', () => {
      for (const value of [
        'http://example.com',
        'a..b',
        '-a.com',
        'a_b.com',
        'x.com.',
        '1.2.3.4',
      ]) {
        refuses({ BURROW_ZONE: value }, 'BURROW_ZONE', `"${value}"`)
      }
      refuses({ BURROW_PUBLIC_SCHEME: 'ftp' }, 'BURROW_PUBLIC_SCHEME', 'http or https')
      for (const value of ['0', '65536', 'abc', '-1', '80.5']) {
        refuses({ BURROW_PUBLIC_PORT: value }, 'BURROW_PUBLIC_PORT', '1 to 65535')
      }
    })
  })

  describe('BURROW_DATA_DIR and BURROW_DATABASE_URL', () => {
    it('resolves the data directory against the working directory', () => {
      assert.equal(load({ BURROW_DATA_DIR: 'state' }).dataDir, '/srv/burrow/state')
      assert.equal(load({ BURROW_DATA_DIR: '/var/lib/burrow' }).dataDir, '/var/lib/burrow')
    })

    it('accepts PostgreSQL URLs and SQLite paths as given', () => {
      for (const url of [
        'postgres://burrow:secret@db:5432/burrow',
        'postgresql://localhost/burrow',
        'sqlite:./burrow.db',
        'sqlite:///var/lib/burrow.db',
        'sqlite::memory:',
        'file:///var/lib/burrow.db',
        'file:burrow.db',
      ]) {
        assert.equal(load({ BURROW_DATABASE_URL: url }).databaseUrl, url)
      }
    })

    it('refuses other databases without echoing a password', () => {
      refuses({ BURROW_DATABASE_URL: 'mysql://db/burrow' }, 'BURROW_DATABASE_URL', 'postgres://')
      refuses({ BURROW_DATABASE_URL: 'burrow.db' }, 'BURROW_DATABASE_URL', 'sqlite:<path>')
      refuses({ BURROW_DATABASE_URL: 'sqlite:' }, 'BURROW_DATABASE_URL', 'sqlite:')
      refuses({ BURROW_DATABASE_URL: 'file:x.db?mode=ro' }, 'BURROW_DATABASE_URL', 'file:')
      assert.throws(
        () => load({ BURROW_DATABASE_URL: 'postgres://u:hunter2@[bad/db' }),
        (error: unknown) =>
          error instanceof ConfigError &&
          !error.message.includes('hunter2') &&
          error.message.includes('u:***@'),
      )
    })
  })

  describe('numbers and the log level', () => {
    it('reads positive integers', () => {
      const config = load({
        BURROW_MAX_BODY_BYTES: '1024',
        BURROW_RESUME_GRACE_SECS: '5',
        BURROW_QUEUE_WAIT_MS: '250',
        BURROW_HEARTBEAT_SECS: '1',
      })
      assert.equal(config.maxBodyBytes, 1024)
      assert.equal(config.resumeGraceSecs, 5)
      assert.equal(config.queueWaitMs, 250)
      assert.equal(config.heartbeatSecs, 1)
    })

    it('refuses zero, negative, fractional and non-numeric values', () => {
      for (const name of [
        'BURROW_MAX_BODY_BYTES',
        'BURROW_RESUME_GRACE_SECS',
        'BURROW_QUEUE_WAIT_MS',
        'BURROW_HEARTBEAT_SECS',
        'BURROW_SESSION_IDLE_SECS',
        'BURROW_METER_SNAPSHOT_SECS',
      ]) {
        for (const value of ['0', '-5', '1.5', 'ten', '1e3', '99999999999999999999']) {
          refuses({ [name]: value }, name, 'whole number of at least 1')
        }
      }
    })

    it('reads BURROW_MEMORY_RELEASE_SECS as 0 or more, 0 turning the release off', () => {
      assert.equal(load({ BURROW_MEMORY_RELEASE_SECS: '0' }).memoryReleaseSecs, 0)
      assert.equal(load({ BURROW_MEMORY_RELEASE_SECS: '300' }).memoryReleaseSecs, 300)
      for (const value of ['-5', '1.5', 'ten', '1e3', '99999999999999999999']) {
        refuses({ BURROW_MEMORY_RELEASE_SECS: value }, 'BURROW_MEMORY_RELEASE_SECS', '0 or more')
      }
    })

    it('reads BURROW_DATABASE_TIMEOUT_SECS from 1 to 3600 s, 15 by default', () => {
      assert.equal(load({}).databaseTimeoutSecs, 15)
      assert.equal(load({ BURROW_DATABASE_TIMEOUT_SECS: '1' }).databaseTimeoutSecs, 1)
      assert.equal(load({ BURROW_DATABASE_TIMEOUT_SECS: '3600' }).databaseTimeoutSecs, 3600)
      // Past 3600 the milliseconds could overflow a timer's 32 bits, which fires at once.
      for (const value of ['0', '3601', '-5', '1.5', 'ten', '1e3', '99999999999999999999']) {
        refuses(
          { BURROW_DATABASE_TIMEOUT_SECS: value },
          'BURROW_DATABASE_TIMEOUT_SECS',
          'whole number from 1 to 3600',
        )
      }
    })

    it('accepts the five log levels in any case and refuses others', () => {
      for (const level of ['error', 'warn', 'info', 'debug', 'trace']) {
        assert.equal(load({ BURROW_LOG: level.toUpperCase() }).logLevel, level)
      }
      refuses({ BURROW_LOG: 'verbose' }, 'BURROW_LOG', 'error, warn, info, debug, trace')
    })
  })

  describe('BURROW_WEBHOOKS_ALLOW_PRIVATE', () => {
    it('is off by default and reads 1/0 and the other yes/no spellings', () => {
      assert.equal(load({}).webhooksAllowPrivate, false)
      for (const value of ['1', 'true', 'YES', 'on']) {
        assert.equal(load({ BURROW_WEBHOOKS_ALLOW_PRIVATE: value }).webhooksAllowPrivate, true)
      }
      for (const value of ['0', 'false', 'No', 'off']) {
        assert.equal(load({ BURROW_WEBHOOKS_ALLOW_PRIVATE: value }).webhooksAllowPrivate, false)
      }
    })

    it('refuses anything else and says what is accepted', () => {
      for (const value of ['2', 'maybe', 'y']) {
        refuses({ BURROW_WEBHOOKS_ALLOW_PRIVATE: value }, 'BURROW_WEBHOOKS_ALLOW_PRIVATE', '1 or 0')
      }
    })
  })

  describe('billing', () => {
    const PADDLE = {
      BURROW_PADDLE_API_KEY: 'pdl_live_apikey_01abc',
      BURROW_PADDLE_WEBHOOK_SECRETS: 'pdl_ntfset_01old, pdl_ntfset_01new',
      BURROW_PADDLE_PRICE_PRO_MONTHLY: 'pri_01pm',
      BURROW_PADDLE_PRICE_PRO_ANNUAL: 'pri_01pa',
      BURROW_PADDLE_PRICE_SCALE_MONTHLY: 'pri_01sm',
      BURROW_PADDLE_PRICE_SCALE_ANNUAL: 'pri_01sa',
    }

    /** Assert that `env` is refused naming `variable`, with `fragment` in the message. */
    const missing = (env: Env, variable: string, fragment: string) =>
      assert.throws(
        () => load(env),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === variable &&
          error.message.includes(fragment),
      )

    it('uses Paddle when an API key is set, with every value read', () => {
      assert.deepEqual(load(PADDLE).billing, {
        provider: 'paddle',
        apiUrl: 'https://api.paddle.com',
        apiKey: 'pdl_live_apikey_01abc',
        webhookSecrets: ['pdl_ntfset_01old', 'pdl_ntfset_01new'],
        prices: {
          pro_monthly: 'pri_01pm',
          pro_annual: 'pri_01pa',
          scale_monthly: 'pri_01sm',
          scale_annual: 'pri_01sa',
        },
        clientToken: null,
      })
      const token = load({ ...PADDLE, BURROW_PADDLE_CLIENT_TOKEN: 'test_0a1b2c' }).billing
      assert.equal(token.provider === 'paddle' && token.clientToken, 'test_0a1b2c')
      const sandbox = load({ ...PADDLE, BURROW_PADDLE_API_URL: 'https://sandbox-api.paddle.com/' })
      assert.equal(
        sandbox.billing.provider === 'paddle' && sandbox.billing.apiUrl,
        'https://sandbox-api.paddle.com',
      )
    })

    it('uses the dev provider without an API key, or when asked to', () => {
      assert.deepEqual(load({}).billing, { provider: 'dev' })
      assert.deepEqual(load({ ...PADDLE, BURROW_BILLING_PROVIDER: 'DEV' }).billing, {
        provider: 'dev',
        chosen: true,
      })
    })

    it('refuses a Paddle setup with a variable missing, naming it', () => {
      missing({ BURROW_BILLING_PROVIDER: 'paddle' }, 'BURROW_PADDLE_API_KEY', 'is not set')
      for (const name of Object.keys(PADDLE).filter((n) => n !== 'BURROW_PADDLE_API_KEY')) {
        missing({ ...PADDLE, [name]: '' }, name, `${name} is not set`)
      }
      missing(
        { ...PADDLE, BURROW_PADDLE_WEBHOOK_SECRETS: ' , ' },
        'BURROW_PADDLE_WEBHOOK_SECRETS',
        'holds no secret',
      )
    })

    it('refuses bad provider names, price ids and API URLs', () => {
      refuses({ BURROW_BILLING_PROVIDER: 'stripe' }, 'BURROW_BILLING_PROVIDER', 'paddle or dev')
      refuses(
        { ...PADDLE, BURROW_PADDLE_PRICE_PRO_ANNUAL: 'price 1' },
        'BURROW_PADDLE_PRICE_PRO_ANNUAL',
        'pri_',
      )
      refuses(
        { ...PADDLE, BURROW_PADDLE_PRICE_SCALE_ANNUAL: 'pri_01pm' },
        'BURROW_PADDLE_PRICE_SCALE_ANNUAL',
        "different from BURROW_PADDLE_PRICE_PRO_MONTHLY's",
      )
      refuses(
        { ...PADDLE, BURROW_PADDLE_CLIENT_TOKEN: 'pdl_secret' },
        'BURROW_PADDLE_CLIENT_TOKEN',
        'live_',
      )
      refuses(
        { ...PADDLE, BURROW_PADDLE_API_URL: 'api.paddle.com' },
        'BURROW_PADDLE_API_URL',
        'sandbox-api',
      )
      refuses(
        { ...PADDLE, BURROW_PADDLE_API_URL: 'ftp://api.paddle.com' },
        'BURROW_PADDLE_API_URL',
        'base URL',
      )
    })
  })

  describe('quotas, sessions and Redis', () => {
    it('reads the Redis URL, the quota switch and the session and meter intervals', () => {
      const config = load({
        BURROW_REDIS_URL: 'redis://:pw@cache.internal:6380/2',
        BURROW_QUOTAS: 'OFF',
        BURROW_SESSION_IDLE_SECS: '5',
        BURROW_METER_SNAPSHOT_SECS: '300',
      })
      assert.equal(config.redisUrl, 'redis://:pw@cache.internal:6380/2')
      assert.equal(config.quotas, false)
      assert.equal(config.sessionIdleSecs, 5)
      assert.equal(config.meterSnapshotSecs, 300)
      assert.equal(
        load({ BURROW_REDIS_URL: 'rediss://cache:6379' }).redisUrl,
        'rediss://cache:6379',
      )
      for (const on of ['on', '1', 'true', 'yes'])
        assert.equal(load({ BURROW_QUOTAS: on }).quotas, true)
      for (const off of ['off', '0', 'false', 'no']) {
        assert.equal(load({ BURROW_QUOTAS: off }).quotas, false)
      }
    })

    it('refuses other URLs without echoing a password, and other switch values', () => {
      refuses({ BURROW_REDIS_URL: 'http://cache:6379' }, 'BURROW_REDIS_URL', 'redis://HOST:PORT')
      refuses({ BURROW_REDIS_URL: 'cache:6379' }, 'BURROW_REDIS_URL', 'redis://HOST:PORT')
      assert.throws(
        () => load({ BURROW_REDIS_URL: 'memcached://u:hunter2@cache:6379' }),
        (error: unknown) =>
          error instanceof ConfigError &&
          !error.message.includes('hunter2') &&
          error.message.includes('u:***@'),
      )
      refuses({ BURROW_QUOTAS: 'sometimes' }, 'BURROW_QUOTAS', 'on or off')
    })
  })
  it('reads BURROW_NODE_URL as an origin and refuses anything else', () => {
    assert.equal(
      loadConfig({ BURROW_NODE_URL: 'http://10.0.0.5:7100' }).nodeUrl,
      'http://10.0.0.5:7100',
    )
    assert.equal(
      loadConfig({ BURROW_NODE_URL: 'https://node-a.internal/' }).nodeUrl,
      'https://node-a.internal',
    )
    for (const bad of ['node-a:7100', 'ftp://x', 'http://x/path', 'http://x/?q=1', 'http://']) {
      assert.throws(() => loadConfig({ BURROW_NODE_URL: bad }), /BURROW_NODE_URL/)
    }
  })
})
