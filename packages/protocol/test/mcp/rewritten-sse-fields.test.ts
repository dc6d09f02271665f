// An SSE event's `id:` and `event:` fields are the server's text too: where events are rewritten
// with a text rewrite (forwarded redaction), they are rewritten like the data, not passed as sent.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ResponseMessages, type ClassifiedMessage } from '../../src/index.js'
import { rewrittenSseFields } from '../../src/mcp/rewritten-sse-fields.js'

const SECRET = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'
const mask = (text: string) => (text.includes(SECRET) ? text.split(SECRET).join('[MASKED]') : null)
const keep = (_m: ClassifiedMessage) => null

function shaped(stream: string, rewriteText: ((t: string) => string | null) | null): string {
  const messages = new ResponseMessages({ kind: 'sse', rewrite: keep, rewriteText })
  const bytes = Buffer.from(stream)
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += 5) out.push(...messages.push(bytes.subarray(i, i + 5)))
  out.push(...messages.end())
  return Buffer.concat(out).toString()
}

const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: {} })

describe('rewritten SSE fields', () => {
  it("masks a secret in an event's id and name; a carried-over id is written once, masked", () => {
    const stream =
      `id: ${SECRET}\nevent: x-${SECRET}\ndata: ${note}\n\n` +
      `data: ${note}\n\n` +
      `data: plain\n\n`
    const out = shaped(stream, mask)
    assert.ok(!out.includes(SECRET), out)
    // The agent's reader keeps the id for the events after it.
    assert.equal(out.match(/^id: \[MASKED\]$/gm)?.length, 1, out)
    assert.match(out, /^event: x-\[MASKED\]$/m)
    assert.equal(out.match(/^data: /gm)?.length, 3, out)
  })

  it('leaves fields with nothing to mask, and every field without a text rewrite, as they came', () => {
    const stream = `id: 41\nevent: note\ndata: ${note}\n\nid: ${SECRET}\ndata: ${note}\n\n`
    const out = shaped(stream, mask)
    assert.match(out, /^id: 41\nevent: note\n/m)
    const untouched = shaped(stream, null)
    assert.ok(untouched.includes(`id: ${SECRET}`), untouched)
  })

  it('keeps a rewritten field on its line: a line end the rewrite brought becomes a space', () => {
    const event = { event: `x-${SECRET}`, data: 'd', id: SECRET }
    const out = rewrittenSseFields(event, () => 'a\r\nb')
    assert.equal(out.id, 'a  b')
    assert.equal(out.event, 'a  b')
    assert.equal(out.data, 'd')
  })

  it('rewrites an id carried over to later events once, not again for each of them', () => {
    const seen: string[] = []
    const count = (t: string) => {
      seen.push(t)
      return mask(t)
    }
    const long = `${'a'.repeat(100_000)}${SECRET}`
    const stream = `id: ${long}\ndata: x\n\n` + 'data: y\n\n'.repeat(50) + 'id: 2\ndata: z\n\n'
    const out = shaped(stream, count)
    assert.equal(seen.filter((t) => t === long).length, 1, 'the long id was rewritten once')
    // Written once too: with every event, a long id and many events cost their product.
    assert.equal(out.match(/^id: a+\[MASKED\]$/gm)?.length, 1)
    assert.match(out, /^id: 2\ndata: z$/m)
  })

  it('rewrites a carried-over id again once the policy it follows changed (found by a review)', () => {
    // A GET stream's policy may change while it is open: an id that passed unmasked before a
    // pattern was added was kept as it passed, on every event after, the secret included.
    let policy: { readonly masks: boolean } = { masks: false }
    const messages = new ResponseMessages({
      kind: 'sse',
      rewrite: keep,
      rewriteText: (t) => (policy.masks ? mask(t) : null),
      shapedBy: () => policy,
    })
    const text = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks).toString()
    const first = text(messages.push(Buffer.from(`id: ${SECRET}\ndata: ${note}\n\n`)))
    assert.ok(first.includes(`id: ${SECRET}`), first)
    policy = { masks: true }
    const later = text(messages.push(Buffer.from(`data: ${note}\n\n`)))
    assert.ok(!later.includes(SECRET), later)
    assert.match(later, /^id: \[MASKED\]$/m)
  })

  it('is given each field once per event, not per character, for a long id', () => {
    let calls = 0
    const count = (t: string) => {
      calls++
      return mask(t)
    }
    const long = `${'a'.repeat(100_000)}${SECRET}`
    const out = rewrittenSseFields({ event: 'message', data: 'd', id: long }, count)
    assert.equal(calls, 1)
    assert.ok(!out.id!.includes(SECRET))
  })
})
