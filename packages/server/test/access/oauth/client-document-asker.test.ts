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
  it("takes a name's last two labels, whatever the case, subdomain or final dot", () => {
    const dead = clientDocumentAsker('a.dead.example')
    assert.equal(clientDocumentAsker('B.x.Dead.Example.'), dead)
    assert.equal(clientDocumentAsker('dead.example'), dead)
    assert.notEqual(clientDocumentAsker('good.example'), dead)
    assert.notEqual(clientDocumentAsker('localhost'), dead)
    assert.notEqual(clientDocumentAsker('dead.example'), 'dead.example', 'never an account id')
  })

  it("does not slow another domain's lookups behind a dead domain's (found by a review)", async () => {
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
    const first = ask('a.dead.example')
    await turn()
    answer('a.dead.example', timedOut())
    await assert.rejects(first, /EAI_AGAIN/)
    const dead = ask('b.dead.example') // slow: it holds one place
    const good = ask('docs.good.example')
    await turn()
    assert.deepEqual(asked, ['a.dead.example', 'b.dead.example', 'docs.good.example'])
    answer('docs.good.example')
    await good
    answer('b.dead.example', timedOut())
    await assert.rejects(dead)
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
