import assert from 'node:assert/strict'
import type { LookupAddress } from 'node:dns'
import { after, before, describe, it } from 'node:test'
import { request } from 'undici'
import { clientDocumentAsker } from '../../../src/access/oauth/client-document-asker.js'
import { boundedResolve, type LookupAll } from '../../../src/webhooks/system-resolve.js'
import { UrlGuard } from '../../../src/webhooks/url-guard.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'

const timedOut = () => Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' })
const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('clientDocumentAsker', () => {
  const same = (a: string, b: string) =>
    assert.equal(clientDocumentAsker(a), clientDocumentAsker(b), `${a} ${b}`)
  const apart = (a: string, b: string) =>
    assert.notEqual(clientDocumentAsker(a), clientDocumentAsker(b), `${a} ${b}`)

  it('takes the registrable domain, whatever the case, subdomain or final dot', () => {
    const dead = clientDocumentAsker('a.dead.example')
    assert.equal(clientDocumentAsker('B.x.Dead.Example.'), dead)
    assert.equal(clientDocumentAsker('dead.example'), dead)
    assert.notEqual(clientDocumentAsker('good.example'), dead)
    assert.notEqual(clientDocumentAsker('localhost'), dead)
    assert.notEqual(clientDocumentAsker('dead.example'), 'dead.example', 'never an account id')
    same('docs.app.example.com', 'example.com')
    apart('example.com', 'example.net')
  })

  it("gives names under a two-label public suffix their own domain's turn (found by a review)", () => {
    // The last two labels made every name under co.uk one asker: one dead name there slowed
    // every client id under the suffix.
    apart('a.example.co.uk', 'b.other.co.uk')
    apart('example.co.uk', 'other.co.uk')
    same('x.a.example.co.uk', 'y.a.example.co.uk')
    same('x.a.example.co.uk', 'example.co.uk')
    apart('docs.example.com.au', 'docs.other.com.au')
  })

  it("keys a provider's free subdomains (the list's private section) each apart", () => {
    apart('alice.github.io', 'bob.github.io')
    same('docs.alice.github.io', 'alice.github.io')
    apart('alice.github.io', 'github.io')
    apart('a.s3.amazonaws.com', 'b.s3.amazonaws.com')
  })

  it("follows the list's wildcard and exception rules", () => {
    // *.ck: every second-level name is a suffix; !www.ck: except this one.
    apart('a.b.ck', 'c.b.ck')
    same('x.a.b.ck', 'a.b.ck')
    same('x.www.ck', 'www.ck')
  })

  it('gives an IP literal its own turn, in any spelling of it', () => {
    same('192.0.2.1', '192.0.2.1')
    apart('192.0.2.1', '192.0.2.2')
    apart('192.0.2.1', '0.2.1')
    same('[2001:db8::1]', '2001:DB8::1')
    apart('2001:db8::1', '2001:db8::2')
    apart('192.0.2.1', '192.0.2.1.example')
  })

  it('keys a name with no registrable domain by the whole name', () => {
    // A bare public suffix, or a single label such as localhost: no one's domain but its own.
    same('LOCALHOST.', 'localhost')
    apart('localhost', 'co.uk')
    apart('co.uk', 'uk')
    apart('github.io', 'gitlab.io')
    apart('intranet', 'localhost')
  })

  it('takes the last two labels under a suffix the list does not know (its default rule)', () => {
    same('a.dev.localhost', 'dev.localhost')
    apart('one.localhost', 'two.localhost')
    same('x.printer.internal', 'y.printer.internal')
    same('deep.name.under.unknowntld', 'under.unknowntld')
  })

  it('reads an internationalized name in its Unicode and ASCII (punycode) spellings alike', () => {
    same('docs.bücher.example', 'xn--bcher-kva.example')
    same('a.münchen.de', 'xn--mnchen-3ya.de')
    apart('a.münchen.de', 'a.munchen.de')
    // 个人.hk is a public suffix: names under it are apart in both spellings.
    same('a.个人.hk', 'x.a.xn--ciqpn.hk')
    apart('a.xn--ciqpn.hk', 'b.xn--ciqpn.hk')
  })

  it('keys hostile names by their domain, with a bounded key', () => {
    // Labels the resolver may still ask for (an underscore, a hyphen at an end, an empty
    // label, one too long) do not buy a fresh turn under a dead domain.
    same('-bad-.dead.example', 'dead.example')
    same('a_b.dead.example', 'dead.example')
    same('a..b.dead.example', 'dead.example')
    same(`${'x'.repeat(100)}.dead.example`, 'dead.example')
    same(`${'a.'.repeat(120)}dead.example`, 'dead.example')
    same('dead.example...', 'dead.example')
    // No DNS name is longer than 253 characters: such names share one key of bounded length.
    const long = `${'x'.repeat(300)}.com`
    same(long, `${'y'.repeat(500)}.net`)
    assert.ok(clientDocumentAsker(long).length < 100)
    assert.ok(clientDocumentAsker(`${'a'.repeat(63)}.`.repeat(3) + 'com').length < 300)
    for (const odd of ['', '.', '..', ' ', 'a b.example', '[', '[]', '%00.example', '\u0000']) {
      assert.match(clientDocumentAsker(odd), /^client document: /, JSON.stringify(odd))
    }
  })

  for (const [deadName, again, other] of [
    ['a.dead.example', 'b.dead.example', 'docs.good.example'],
    // Under a two-label public suffix, and a provider's free subdomains: before, the last two
    // labels made these one asker, and one dead name slowed every name under the suffix.
    ['a.example.co.uk', 'x.example.co.uk', 'b.other.co.uk'],
    ['alice.github.io', 'www.alice.github.io', 'bob.github.io'],
  ] as const) {
    it(`does not slow ${other}'s lookups behind ${deadName}'s (found by a review)`, async () => {
      // One asker for every stranger let one dead domain keep it slow: everyone's lookups went
      // one at a time behind the dead one's and ran out their wait for a place.
      const asked: string[] = []
      const pending = new Map<string, (error: Error | null, found: LookupAddress[]) => void>()
      const lookup: LookupAll = (hostname, _options, callback) => {
        asked.push(hostname)
        pending.set(hostname, callback)
      }
      const answer = (hostname: string, error: Error | null = null) =>
        pending.get(hostname)!(error, error ? [] : [{ address: '192.0.2.1', family: 4 }])
      const resolve = boundedResolve(lookup, 2)
      const ask = (hostname: string) => resolve(hostname, clientDocumentAsker(hostname))
      const first = ask(deadName)
      await turn()
      answer(deadName, timedOut())
      await assert.rejects(first, /EAI_AGAIN/)
      const dead = ask(again) // slow: it holds one place
      const good = ask(other)
      await turn()
      assert.deepEqual(asked, [deadName, again, other])
      answer(other)
      await good
      answer(again, timedOut())
      await assert.rejects(dead)
    })
  }

  it('keeps a slow domain slow for every name under it', async () => {
    // Keyed by the whole host, each fresh name under a dead zone would get a first turn.
    const asked: string[] = []
    const pending = new Map<string, (error: Error | null, found: LookupAddress[]) => void>()
    const lookup: LookupAll = (hostname, _options, callback) => {
      asked.push(hostname)
      pending.set(hostname, callback)
    }
    const resolve = boundedResolve(lookup, 2)
    const ask = (hostname: string) => resolve(hostname, clientDocumentAsker(hostname))
    const first = ask('a.example.co.uk')
    await turn()
    pending.get('a.example.co.uk')!(timedOut(), [])
    await assert.rejects(first, /EAI_AGAIN/)
    const second = ask('b.example.co.uk')
    const third = ask('c.x.example.co.uk')
    await turn()
    // Slow: one place at most, though two are free.
    assert.deepEqual(asked, ['a.example.co.uk', 'b.example.co.uk'])
    pending.get('b.example.co.uk')!(timedOut(), [])
    await assert.rejects(second)
    await turn()
    assert.deepEqual(asked, ['a.example.co.uk', 'b.example.co.uk', 'c.x.example.co.uk'])
    pending.get('c.x.example.co.uk')!(timedOut(), [])
    await assert.rejects(third)
  })
})

describe('the OAuth guard', () => {
  let receiver: WebhookReceiver
  before(async () => {
    receiver = await startWebhookReceiver()
  })
  after(async () => {
    await receiver.close()
  })

  it("looks a client document's host up in its domain's turn", async () => {
    const askers: (string | undefined)[] = []
    const guard = new UrlGuard({
      allowPrivate: true,
      askerOf: clientDocumentAsker,
      resolve: async (_hostname, who) => {
        askers.push(who)
        return [{ address: '127.0.0.1', family: 4 }]
      },
    })
    try {
      const port = new URL(receiver.url).port
      receiver.respond({ status: 204 }, { status: 204 })
      for (const host of ['one.a.example', 'b.example']) {
        const answer = await request(`http://${host}:${port}/`, { dispatcher: guard.dispatcher })
        await answer.body.dump()
      }
      assert.deepEqual(askers, [clientDocumentAsker('a.example'), clientDocumentAsker('b.example')])
    } finally {
      await guard.close()
    }
  })
})
