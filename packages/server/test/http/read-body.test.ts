/**
 * `readBody` and a request answered while its body still arrives (`ANSWERED_WHILE_READING`, which
 * the edge emits when the request's access is taken away): what was read is let go and given back
 * to the budget at once, while the sender has paused mid-body, and the rest, when it comes, is
 * read and discarded. Before, the bytes read stayed held and counted until the sender wrote again
 * or the request timed out.
 */
import assert from 'node:assert/strict'
import { createServer, request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, it } from 'node:test'
import { BodyBudget } from '../../src/http/body-budget.js'
import { ANSWERED_WHILE_READING, readBody } from '../../src/http/read-body.js'

describe('readBody, answered while the body arrives', () => {
  it('lets go of what it read at once, and discards the rest', async () => {
    const budget = new BodyBudget({ perAddress: 1 << 20, perTunnel: 1 << 20, perNode: 1 << 20 })
    const holder = { address: 'a', tunnel: 't' }
    let outcome: Promise<unknown> | undefined
    let held = -1
    let served: IncomingMessage | undefined
    const server = createServer((req, res) => {
      served = req
      outcome = readBody(req, 1 << 20, { budget, holder })
      req.once('data', () =>
        setImmediate(() => {
          held = budget.total
          req.emit(ANSWERED_WHILE_READING)
          res.writeHead(403).end('refused')
        }),
      )
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      headers: { 'content-length': '20000' },
    })
    req.write(Buffer.alloc(10_000, 0x20))
    const [res] = (await once(req, 'response')) as [IncomingMessage]
    assert.equal(res.statusCode, 403)
    assert.equal(await outcome, 'answered')
    assert.equal(held, 10_000, 'the bytes read were held until the answer')
    assert.equal(budget.total, 0, 'given back while the sender is paused')
    assert.equal(served!.complete, false, 'the body is still arriving')
    // The rest is read (and discarded): the request completes.
    req.end(Buffer.alloc(10_000, 0x20))
    res.resume()
    await once(served!, 'end')
    assert.equal(budget.total, 0)
    server.close()
  })
})

describe('readBody, stopped while the body arrives', () => {
  it('keeps no reference to what it read while the sender pauses (answered, or over budget)', async () => {
    // The bytes given back to the budget must be let go of too: a stopped read kept its chunks
    // (referenced by its 'end' listener) until the body ended or the request timed out, so
    // memory held passed what the budgets count.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    for (const how of ['answered', 'over_budget'] as const) {
      const budget = new BodyBudget({ perAddress: 1 << 20, perTunnel: 1 << 20, perNode: 1 << 20 })
      const req = Object.assign(new Readable({ read() {} }), { headers: {}, complete: false })
      const outcome = readBody(req as unknown as IncomingMessage, 4 << 20, {
        budget,
        holder: { address: 'a', tunnel: 't' },
      })
      const read = pushWeakly(req, 1 << 19)
      await new Promise((resolve) => setImmediate(resolve))
      if (how === 'answered') req.emit(ANSWERED_WHILE_READING)
      else req.push(Buffer.alloc(1 << 20, 0x20))
      assert.equal(await outcome, how)
      assert.equal(budget.total, 0)
      await new Promise((resolve) => setImmediate(resolve))
      gc()
      assert.equal(read.deref(), undefined, `${how}: what was read is still held`)
      req.destroy()
    }
  })
})

/** Push `size` bytes into `req`, keeping only a weak reference to them. */
function pushWeakly(req: Readable, size: number): WeakRef<Buffer> {
  const chunk = Buffer.alloc(size, 0x20)
  req.push(chunk)
  return new WeakRef(chunk)
}
