/**
 * Tests of the URL guard: the refusal messages the delivery log shows, what registration
 * refuses, and the undici dispatcher, which checks every address a name resolves to (system DNS
 * for `localhost`, a fixed table for made-up names) and connects only to the checked address.
 */

import assert from 'node:assert/strict'
import type { LookupAddress } from 'node:dns'
import { after, before, describe, it } from 'node:test'
import { request } from 'undici'
import {
  AddressRefusedError,
  UrlGuard,
  addressRefusal,
  literalRefusal,
  registrationRefusal,
} from '../../src/webhooks/url-guard.js'
import { startWebhookReceiver } from '../helpers/webhook-receiver.js'
import type { WebhookReceiver } from '../helpers/webhook-receiver.js'

const HINT = 'set BURROW_WEBHOOKS_ALLOW_PRIVATE=1 to allow private addresses'

/** A resolver that knows only these names. */
function table(names: Record<string, readonly LookupAddress[]>) {
  return async (hostname: string): Promise<readonly LookupAddress[]> => {
    const found = names[hostname]
    if (found === undefined)
      throw Object.assign(new Error(`${hostname} unknown`), { code: 'ENOTFOUND' })
    return found
  }
}

describe('refusal messages', () => {
  it('name the address, its kind and the operator switch', () => {
    assert.equal(
      addressRefusal('127.0.0.1', '127.0.0.1', false),
      `refused: 127.0.0.1 is a loopback address; ${HINT}`,
    )
    assert.equal(
      addressRefusal('hooks.example.test', '10.0.0.7', false),
      `refused: hooks.example.test resolves to 10.0.0.7, a private address; ${HINT}`,
    )
    assert.equal(addressRefusal('8.8.8.8', '8.8.8.8', false), null)
  })

  it('lift private kinds when allowed, but never metadata, multicast or unspecified', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '192.168.0.1',
      '100.64.0.1',
      'fd00::1',
      '::1',
    ]) {
      assert.equal(addressRefusal(address, address, true), null, address)
    }
    assert.equal(
      addressRefusal('169.254.169.254', '169.254.169.254', true),
      'refused: 169.254.169.254 is a cloud metadata service address; webhooks are never sent there',
    )
    // AWS serves IMDS, the VPC DNS and EKS Pod Identity on IPv6 as well as IPv4.
    for (const address of [
      '224.0.0.1',
      '0.0.0.0',
      '::',
      'fd00:ec2::254',
      'fd00:ec2::253',
      'fd00:ec2::23',
      '169.254.170.23',
    ]) {
      assert.match(addressRefusal(address, address, true) ?? '', /never sent there/, address)
    }
  })

  it('check literal hostnames only; names wait for delivery, except localhost at registration', () => {
    assert.match(literalRefusal('[::1]', false) ?? '', /^refused: ::1 is a loopback address/)
    assert.equal(literalRefusal('localhost', false), null)
    assert.equal(literalRefusal('hooks.example.com', false), null)
    for (const name of ['localhost', 'LOCALHOST.', 'app.localhost']) {
      assert.match(registrationRefusal(name, false) ?? '', /is a loopback name; set BURROW_/, name)
      assert.equal(registrationRefusal(name, true), null)
    }
    assert.match(registrationRefusal('10.9.8.7', false) ?? '', /10\.9\.8\.7 is a private address/)
    assert.equal(registrationRefusal('hooks.example.com', false), null)
  })
})

describe('UrlGuard dispatcher', () => {
  let receiver: WebhookReceiver
  const guards: UrlGuard[] = []
  const guard = (options: ConstructorParameters<typeof UrlGuard>[0]) => {
    const made = new UrlGuard(options)
    guards.push(made)
    return made
  }

  before(async () => {
    receiver = await startWebhookReceiver()
  })
  after(async () => {
    await Promise.all(guards.map((g) => g.close()))
    await receiver.close()
  })

  async function post(g: UrlGuard, url: string) {
    const response = await request(url, { method: 'POST', body: '{}', dispatcher: g.dispatcher })
    await response.body.dump()
    return response.statusCode
  }

  it('refuses localhost, resolved by the system, without the switch', async () => {
    const g = guard({ allowPrivate: false })
    await assert.rejects(post(g, `http://localhost:${receiver.port}/hooks`), (error: unknown) => {
      assert.ok(error instanceof AddressRefusedError)
      assert.match(
        error.message,
        /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address; set BURROW_/,
      )
      return true
    })
  })

  it('refuses a name when any of its addresses is private, whatever the order', async () => {
    const before = receiver.received.length
    const g = guard({
      allowPrivate: false,
      resolve: table({
        'mixed.example.test': [
          { address: '93.184.215.14', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ],
        'mapped.example.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
      }),
    })
    await assert.rejects(
      post(g, `http://mixed.example.test:${receiver.port}/hooks`),
      /mixed\.example\.test resolves to 127\.0\.0\.1, a loopback address/,
    )
    await assert.rejects(
      post(g, `http://mapped.example.test:${receiver.port}/hooks`),
      /resolves to ::ffff:127\.0\.0\.1, a loopback address/,
    )
    assert.equal(receiver.received.length, before)
  })

  it('with the switch, connects to the very address it checked', async () => {
    const g = guard({
      allowPrivate: true,
      resolve: table({ 'hooks.example.test': [{ address: '127.0.0.1', family: 4 }] }),
    })
    const count = receiver.received.length
    assert.equal(await post(g, `http://hooks.example.test:${receiver.port}/hooks`), 200)
    assert.equal(receiver.received.length, count + 1)
    assert.equal(receiver.received.at(-1)?.headers.host, `hooks.example.test:${receiver.port}`)
  })

  it('still refuses a metadata address with the switch', async () => {
    const g = guard({
      allowPrivate: true,
      resolve: table({ 'meta.example.test': [{ address: '169.254.169.254', family: 4 }] }),
    })
    await assert.rejects(post(g, 'http://meta.example.test/latest'), /cloud metadata service/)
  })

  it('gives its lookups no longer to wait for a place than its connections have', async () => {
    const waits: (number | undefined)[] = []
    const g = guard({
      allowPrivate: true,
      connectTimeoutMs: 5_000,
      resolve: async (_hostname, _who, _signal, waitMs) => {
        waits.push(waitMs)
        return [{ address: '127.0.0.1', family: 4 }]
      },
    })
    assert.equal(await post(g, `http://hooks.example.test:${receiver.port}/hooks`), 200)
    assert.deepEqual(waits, [5_000])
  })

  it('passes on resolver failures and empty answers', async () => {
    const g = guard({ allowPrivate: true, resolve: table({ 'empty.example.test': [] }) })
    await assert.rejects(post(g, 'http://nowhere.example.test/'), /nowhere\.example\.test unknown/)
    await assert.rejects(
      post(g, 'http://empty.example.test/'),
      /empty\.example\.test has no addresses/,
    )
  })
})
