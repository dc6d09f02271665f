/**
 * The usage-counter implementations the contract suite runs against, each on fresh state: the
 * memory implementation on every test database (SQLite always, PostgreSQL with
 * TEST_DATABASE_URL), and the Redis implementation with TEST_REDIS_URL, as two nodes sharing a
 * random key prefix whose keys are deleted afterwards.
 */

import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import { MemoryUsageCounters } from '../../src/quota/memory-usage-counters.js'
import { RedisUsageCounters } from '../../src/quota/redis-usage-counters.js'
import type { UsageCounters } from '../../src/quota/usage-counters.js'
import type { UsageCountersTable } from '../../src/store/schema.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

/** Counters under test, on fresh state. */
export interface CounterSubject {
  /** The counters under test: "node A". */
  readonly counters: UsageCounters
  /** Another node sharing the counters (Redis), or `counters` itself (single node). */
  readonly peer: UsageCounters
  /** Close everything and remove the state. */
  close(): Promise<void>
}

/** One implementation on one backend. */
export interface CounterImplementation {
  readonly name: string
  open(clock: () => Date): Promise<CounterSubject>
}

/** The store's database seen with the usage table alone. */
export type UsageDb = Kysely<{ usage_counters: UsageCountersTable }>

/** `store.db` typed for the usage counters. */
export function usageDb(store: Store): UsageDb {
  return store.db.withTables<{ usage_counters: UsageCountersTable }>()
}

/** Open the store of `database`, migrated (`003_usage_counters` included). */
export async function openUsageStore(database: TestDatabase): Promise<Store> {
  return openStore(database.config)
}

/** Every implementation available here. */
export function counterImplementations(): CounterImplementation[] {
  const memory = testBackends().map((backend): CounterImplementation => ({
    name: `memory on ${backend.name}`,
    async open(clock) {
      const database = await backend.create()
      const store = await openUsageStore(database)
      const counters = await MemoryUsageCounters.open(usageDb(store), { clock })
      return {
        counters,
        peer: counters,
        async close() {
          await counters.close()
          await store.close()
          await database.drop()
        },
      }
    },
  }))
  const redisUrl = process.env.TEST_REDIS_URL
  return redisUrl ? [...memory, redisNodes(redisUrl)] : memory
}

function redisNodes(url: string): CounterImplementation {
  return {
    name: 'redis (two nodes)',
    async open(clock) {
      const keyPrefix = `burrow-test-${randomBytes(6).toString('hex')}:`
      const counters = RedisUsageCounters.open(url, { keyPrefix, clock })
      const peer = RedisUsageCounters.open(url, { keyPrefix, clock })
      return {
        counters,
        peer,
        async close() {
          await counters.close()
          await peer.close()
          await deleteRedisKeys(url, keyPrefix)
        },
      }
    },
  }
}

/** Delete every key under `prefix`. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
      cursor = next
      if (keys.length > 0) await redis.del(...keys)
    } while (cursor !== '0')
  } finally {
    await redis.quit()
  }
}
