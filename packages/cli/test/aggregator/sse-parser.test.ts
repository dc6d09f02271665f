/** The SSE reader of the aggregator's HTTP client, fed in arbitrary pieces. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readSseData, SseParser } from '../../src/aggregator/sse-parser.js'

describe('SseParser', () => {
  it('assembles events split anywhere, with any line ending', () => {
    const text =
      'id: 1\r\ndata: {"a":\r\ndata: 1}\r\n\r\n: keep-alive\n\nevent: other\ndata: x\n\rdata: y\r\r\n'
    for (let split = 1; split < text.length; split++) {
      const parser = new SseParser()
      const events = [...parser.feed(text.slice(0, split)), ...parser.feed(text.slice(split))]
      assert.deepEqual(
        events,
        [
          { event: 'message', data: '{"a":\n1}', id: '1' },
          { event: 'other', data: 'x', id: '1' },
          { event: 'message', data: 'y', id: '1' },
        ],
        `split at ${split}`,
      )
    }
  })

  it('reads a body, skipping priming events and other event types', async () => {
    async function* body() {
      yield Buffer.from('id: p\ndata: \n\n')
      yield Buffer.from('event: ping\ndata: 1\n\ndata: {"x":1}\n\n')
      yield Buffer.from('data: {"y":2}\n\n')
    }
    const seen: string[] = []
    await readSseData(body(), (data) => seen.push(data))
    assert.deepEqual(seen, ['{"x":1}', '{"y":2}'])
  })
})
