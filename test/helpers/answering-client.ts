/**
 * A bare tunnel client over the broker's WebSocket that answers every request with one empty
 * tool result: for tests that count calls through a tunnel without a local server behind it.
 */
import { decodeFrame, encodeFrame, PROTOCOL_VERSION } from '@burrow/protocol'
import { WebSocket } from 'ws'
import type { Service } from './stack.js'

/** The answer every request gets. */
const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'

/** One tools/call, as an agent's request body. */
export const TOOL_CALL =
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}'

/** Connect to `service`'s broker with tunnel key `key`; resolves once welcomed. */
export function answeringClient(service: Service, key: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(service.broker, { headers: { authorization: `Bearer ${key}` } })
    ws.once('error', reject)
    ws.once('open', () =>
      ws.send(
        encodeFrame({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'test/1' } }),
      ),
    )
    ws.on('message', (data: Buffer) => {
      const frame = decodeFrame(data)
      if (frame.type === 'welcome') resolve(ws)
      if (frame.type !== 'open') return
      ws.send(
        encodeFrame({
          type: 'response',
          streamId: frame.streamId,
          head: { status: 200, headers: [['content-type', 'application/json']] },
          body: Buffer.from(ANSWER),
          fin: true,
        }),
      )
    })
  })
}
