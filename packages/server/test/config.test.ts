/**
 * Tests of `loadConfig`: defaults, every accepted form of each BURROW_* variable, and the
 * ConfigError a user sees for bad values.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'
import type { Env } from '../src/config.js'

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
      publicScheme: 'http',
      publicPort: 7100,
      dataDir: '/srv/burrow/.burrow',
      databaseUrl: null,
      maxBodyBytes: 4194304,
      resumeGraceSecs: 30,
      queueWaitMs: 5000,
      heartbeatSecs: 15,
      logLevel: 'info',
      clientLatestVersion: null,
      clientDownloadUrl: null,
      redisUrl: null,
      quotas: true,
      sessionIdleSecs: 1800,
      meterSnapshotSecs: 60,
    })
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

    it('accepts the five log levels in any case and refuses others', () => {
      for (const level of ['error', 'warn', 'info', 'debug', 'trace']) {
        assert.equal(load({ BURROW_LOG: level.toUpperCase() }).logLevel, level)
      }
      refuses({ BURROW_LOG: 'verbose' }, 'BURROW_LOG', 'error, warn, info, debug, trace')
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
})
