/**
 * `POST /api/crash-reports` on the real built burrowd (`npx tsc -b` first), and the operator's
 * view of what arrived (`burrowd crash-reports list`). A valid report is stored and listed;
 * malformed, misshapen, oversized and too frequent ones (from one address, or from all to the
 * node) are refused with the one envelope and stored nowhere. Each test sends as its own client (X-Forwarded-For, trusted from loopback) so
 * the per-client limit of one test does not touch another.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { BURROWD, startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { edgeRequest, type EdgeRequestOptions } from '../helpers/edge-request.js'

const run = promisify(execFile)

const REPORT = {
  client_version: '0.1.0',
  os: 'linux',
  arch: 'x64',
  node: 'v20.19.0',
  kind: 'uncaught',
  message: 'Error: boom',
  stack: 'Error: boom\n    at main (file:///~/burrow/dist/bin/burrow.js:10:5)',
  command: 'up',
}

interface ListedReport {
  readonly id: string
  readonly received_at: string
  readonly message: string
  readonly [field: string]: unknown
}

describe('POST /api/crash-reports', () => {
  let service: Service
  let client = 0

  /** POST as a fresh client address unless `from` names one. */
  const post = (
    body: string | Buffer,
    extra: Partial<EdgeRequestOptions> & { from?: string } = {},
  ) =>
    edgeRequest(service.port, `127.0.0.1:${service.port}`, {
      method: 'POST',
      path: '/api/crash-reports',
      body,
      ...extra,
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': extra.from ?? `10.77.${++client >> 8}.${client & 255}`,
        ...extra.headers,
      },
    })
  const list = async (...args: string[]) =>
    (await run(process.execPath, [BURROWD, 'crash-reports', 'list', ...args], { env: service.env }))
      .stdout
  const listed = async (): Promise<ListedReport[]> =>
    (JSON.parse(await list('--json', '--limit', '1000')) as { crash_reports: ListedReport[] })
      .crash_reports
  const stored = async (message: string) => (await listed()).filter((r) => r.message === message)

  before(async () => {
    service = await startService({ BURROW_LOG: 'warn' })
  })
  after(async () => {
    await service?.close()
  })

  it('stores a valid report (202 with its id) and the operator lists it with every field', async () => {
    const res = await post(JSON.stringify({ ...REPORT, message: 'Error: stored' }))
    assert.equal(res.status, 202, res.text)
    const { id } = JSON.parse(res.text) as { id: string }
    assert.match(id, /^crash_[0-9a-f]{20}$/)

    const out = await list('--json')
    assert.equal(out.trim().split('\n').length, 1, 'one JSON object on one line')
    const report = (JSON.parse(out) as { crash_reports: ListedReport[] }).crash_reports.find(
      (r) => r.id === id,
    )
    assert.ok(report, `report ${id} is not listed: ${out}`)
    assert.ok(Math.abs(Date.parse(report.received_at) - Date.now()) < 60_000)
    assert.deepEqual(
      { ...report, received_at: 'x' },
      {
        id,
        received_at: 'x',
        ...REPORT,
        message: 'Error: stored',
      },
    )
  })

  it('lists newest first in a readable form, with terminal control characters escaped', async () => {
    const first = await post(JSON.stringify({ ...REPORT, message: 'Error: older one' }))
    assert.equal(first.status, 202)
    await new Promise((r) => setTimeout(r, 5))
    const hostile = await post(
      JSON.stringify({ ...REPORT, command: null, message: 'Error: evil \u001b[2J\u0007 title' }),
    )
    assert.equal(hostile.status, 202)
    const out = await list('--limit', '2')
    assert.ok(!out.includes('\u001b'), 'no raw escape reaches the terminal')
    assert.ok(out.includes('Error: evil \\x1b[2J\\x07 title'), out)
    assert.ok(out.indexOf('Error: evil') < out.indexOf('Error: older one'), 'newest first')
    assert.match(out, /burrow 0\.1\.0 {2}linux\/x64 {2}node v20\.19\.0 {2}uncaught/)
    assert.match(out, /at main \(file:\/\/\/~\/burrow\/dist\/bin\/burrow\.js:10:5\)/)
  })

  it('refuses malformed JSON with 400 parse_error and stores nothing', async () => {
    const res = await post('{"client_version": "0.1.0", "message": "Error: half')
    assertRefusal(res, { policy: 'parse_error', jsonRpcCode: -32700, reason: /not JSON/ })
    assert.deepEqual(await stored('Error: half'), [])
  })

  it('refuses a report of the wrong shape with 400 invalid_request naming the field', async () => {
    const res = await post(JSON.stringify({ ...REPORT, kind: 'panic', message: 'Error: shape' }))
    assertRefusal(res, {
      policy: 'invalid_request',
      reason: /"kind" must be "uncaught" or "fatal"/,
    })
    const tooLong = await post(JSON.stringify({ ...REPORT, os: 'x'.repeat(33) }))
    assertRefusal(tooLong, { policy: 'invalid_request', reason: /"os" must be 1-32/ })
    assert.deepEqual(await stored('Error: shape'), [])
  })

  it('refuses a body that is not declared as JSON with 400', async () => {
    const res = await post(JSON.stringify(REPORT), { headers: { 'content-type': 'text/plain' } })
    assertRefusal(res, { policy: 'invalid_request', reason: /application\/json/ })
  })

  it('refuses more than 64 KiB with 413 payload_too_large, declared or streamed', async () => {
    const big = JSON.stringify({ ...REPORT, message: 'Error: big', stack: 'x'.repeat(70_000) })
    assertRefusal(await post(big), { policy: 'payload_too_large', reason: /65536 bytes/ })
    assertRefusal(await post(big, { chunked: true }), { policy: 'payload_too_large' })
    assert.deepEqual(await stored('Error: big'), [])
  })

  it('allows 30 reports a minute per client, then 429 rate_limited with Retry-After', async () => {
    const from = '203.0.113.99'
    const body = JSON.stringify({ ...REPORT, message: 'Error: flood' })
    for (let i = 0; i < 30; i++) {
      const res = await post(body, { from })
      assert.equal(res.status, 202, `report ${i + 1}: ${res.text}`)
    }
    const refused = await post(body, { from })
    assertRefusal(refused, { policy: 'rate_limited', reason: /too many crash reports/ })
    const wait = Number(refused.headers['retry-after'])
    assert.ok(wait >= 1 && wait <= 60, `Retry-After: ${refused.headers['retry-after']}`)
    assert.equal((await stored('Error: flood')).length, 30)
    assert.equal((await post(body, { from: '203.0.113.100' })).status, 202, 'another client')
  })

  // Last of the reports this file sends: it spends the node's allowance for the minute.
  it('allows 300 reports a minute to the node from all addresses, then 429 for any', async () => {
    const body = (n: number) => JSON.stringify({ ...REPORT, message: `Error: many ${n}` })
    let sent = 0
    let refused: Awaited<ReturnType<typeof post>> | undefined
    while (refused === undefined && sent < 400) {
      const res = await post(body(++sent))
      if (res.status !== 202) refused = res
    }
    assert.ok(refused, 'the node refused one of 400 reports from 400 addresses')
    assertRefusal(refused, { policy: 'rate_limited', reason: /too many crash reports/ })
    assert.match(refused.text, /this service received too many crash reports/)
    assert.ok(Number(refused.headers['retry-after']) >= 1)
    const many = (await listed()).filter((r) => r.message.startsWith('Error: many '))
    assert.equal(many.length, sent - 1, 'every report before the refusal was kept')
    assert.ok(!many.some((r) => r.message === `Error: many ${sent}`), 'the refused one was not')
  })

  it('answers other methods with 405 and Allow: POST', async () => {
    const res = await edgeRequest(service.port, `127.0.0.1:${service.port}`, {
      path: '/api/crash-reports',
    })
    assertRefusal(res, { policy: 'method_not_allowed' })
    assert.equal(res.headers.allow, 'POST')
  })

  it('crash-reports list refuses a bad --limit with a usage message', async () => {
    await assert.rejects(list('--limit', '0'), (error: { code?: number; stderr?: string }) => {
      assert.equal(error.code, 1)
      assert.match(
        String(error.stderr),
        /^burrowd: --limit "0" must be a whole number from 1 to 1000/,
      )
      return true
    })
  })
})
