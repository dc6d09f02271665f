// Open requests noted per tunnel: checked again on demand, those no longer admitted ended, and
// forgotten when they close.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readJsonRpcBody, type JsonRpcBody } from '@burrow/protocol'
import { AdmittedExchanges, opensStream } from '../../src/edge/admitted-exchanges.js'

describe('AdmittedExchanges', () => {
  it('ends only the exchanges of the tunnel checked that the gate now refuses', async () => {
    const admitted = new AdmittedExchanges()
    const ended: string[] = []
    const verdict = new Map([
      ['a1', true],
      ['a2', false],
      ['b1', false],
    ])
    const note = (tunnel: string, name: string, stream = true) =>
      admitted.add(
        tunnel,
        () => Promise.resolve(verdict.get(name) ?? true),
        () => ended.push(name),
        stream,
      )
    const forgets = [note('tun_a', 'a1'), note('tun_a', 'a2'), note('tun_b', 'b1')]
    forgets.push(note('tun_b', 'b2-call', false))
    verdict.set('b2-call', false)
    assert.equal(admitted.size, 4)
    assert.equal(await admitted.recheck('tun_a'), 1)
    assert.deepEqual(ended, ['a2'])
    assert.equal(await admitted.recheck('tun_unknown'), 0)
    // The timer's check: streams only (a call in flight is left to end, e.g. past its token's hour).
    assert.equal(await admitted.recheckStreams(), 2, 'a2 is still open until it closes')
    assert.deepEqual(ended, ['a2', 'a2', 'b1'])
    // A change of the tunnel's access ends calls too.
    assert.equal(await admitted.recheck('tun_b'), 2)
    assert.deepEqual(ended, ['a2', 'a2', 'b1', 'b1', 'b2-call'])
    for (const forget of forgets) {
      forget()
      forget() // closing twice forgets once
    }
    assert.equal(admitted.size, 0)
    assert.equal(await admitted.recheckStreams(), 0)
  })

  it('checks streams again after a check that had nothing to check, and once after a burst', async () => {
    const admitted = new AdmittedExchanges()
    assert.equal(await admitted.recheckStreams(), 0)
    let ended = 0
    let checks = 0
    admitted.add(
      'tun_a',
      () => {
        checks++
        return Promise.resolve(false)
      },
      () => ended++,
      true,
    )
    assert.equal(await admitted.recheckStreams(), 1, 'a check with nothing to check did not stay')
    const burst = await Promise.all([1, 2, 3, 4].map(() => admitted.recheckStreams()))
    assert.equal(checks, 3, 'four asks while one runs make one more check, not four')
    assert.deepEqual(burst, [2, 2, 2, 2])
    assert.equal(ended, 3)
  })

  it('keeps an exchange whose check failed (no news is not a refusal)', async () => {
    const admitted = new AdmittedExchanges()
    let ended = 0
    const forget = admitted.add(
      'tun_a',
      () => Promise.reject(new Error('database unreachable')),
      () => ended++,
    )
    assert.equal(await admitted.recheck('tun_a'), 0)
    assert.equal(ended, 0)
    forget()
  })
})

describe('AdmittedExchanges under many changes', () => {
  it('checks once more after a running check, however many changes came meanwhile', async () => {
    const admitted = new AdmittedExchanges()
    let checks = 0
    let release: () => void = () => {}
    const forget = admitted.add(
      'tun_a',
      () => {
        checks++
        return new Promise<boolean>((resolve) => (release = () => resolve(true)))
      },
      () => {},
    )
    const first = admitted.recheck('tun_a')
    await new Promise((resolve) => setImmediate(resolve))
    const more = [admitted.recheck('tun_a'), admitted.recheck('tun_a'), admitted.recheck('tun_a')]
    release()
    await new Promise((resolve) => setImmediate(resolve))
    release()
    await Promise.all([first, ...more])
    assert.equal(checks, 2, 'the running check and one more')
    forget()
  })
})

describe('AdmittedExchanges admitting during a change', () => {
  it('checks at once an exchange admitted while the access changed, and ends it if refused', async () => {
    const admitted = new AdmittedExchanges()
    let ended = 0
    const forget = admitted.add(
      'tun_a',
      () => Promise.resolve(false),
      () => ended++,
      false,
      true,
    )
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(ended, 1)
    forget()
    // Not stale: nothing is checked until a change.
    const kept = admitted.add(
      'tun_a',
      () => Promise.resolve(false),
      () => ended++,
    )
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(ended, 1)
    kept()
  })
})

describe('opensStream', () => {
  const body = (text: string) => readJsonRpcBody(Buffer.from(text)) as JsonRpcBody
  const listen = '{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{}}'
  const call = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}'

  it('takes a GET and a POST holding subscriptions/listen for streams, and a call for none', () => {
    assert.equal(opensStream('GET', null), true)
    assert.equal(opensStream('POST', null), false, 'not known before the body is read')
    assert.equal(opensStream('POST', body(listen)), true)
    assert.equal(opensStream('POST', body(`[${call},${listen}]`)), true)
    assert.equal(opensStream('POST', body(call)), false)
    const notification = '{"jsonrpc":"2.0","method":"subscriptions/listen"}'
    assert.equal(opensStream('POST', body(notification)), false, 'a notification opens nothing')
  })

  it('lets the timer check an exchange found to be a stream after it was noted', async () => {
    const admitted = new AdmittedExchanges()
    let rpc: JsonRpcBody | null = null
    let ended = 0
    const forget = admitted.add(
      'tun_a',
      () => Promise.resolve(false),
      () => ended++,
      () => opensStream('POST', rpc),
    )
    assert.equal(await admitted.recheckStreams(), 0, 'a POST whose body is unread is a call')
    rpc = body(listen)
    assert.equal(await admitted.recheckStreams(), 1)
    assert.equal(ended, 1)
    forget()
  })
})
