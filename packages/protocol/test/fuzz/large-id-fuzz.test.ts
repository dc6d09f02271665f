// Property tests of ids beyond 2^53 − 1: whatever JSON surrounds such an id (strings with quotes
// and brackets, nested members named "id", white space, a batch around it), the refusal echoes
// exactly the digits that were sent; and no body, however mangled, makes the reader throw.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  isBodyProblem,
  LargeNumberId,
  readJsonRpcBody,
  refusalIds,
  refusalJson,
} from '../../src/index.js'

const LIMIT = 2n ** 53n - 1n

/** The text of an integer beyond ±(2^53 − 1), or of such a number in exponent form. */
const largeNumberText = fc.oneof(
  fc.bigInt({ min: LIMIT + 1n, max: 10n ** 40n }).map(String),
  fc.bigInt({ min: -(10n ** 40n), max: -(LIMIT + 1n) }).map(String),
  fc.integer({ min: 16, max: 400 }).map((e) => `1e${e}`),
)

const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n')

/** Members around the id: any JSON, nested "id" members included. */
const member = fc.tuple(
  fc.constantFrom('params', 'x', 'id\\"', '\\u0069dx', 'meta'),
  fc.oneof(fc.jsonValue(), fc.constant({ id: 5, s: '"}]' })),
)

describe('ids beyond 2^53 − 1 (property)', () => {
  it('are echoed as sent, wherever they stand', () => {
    fc.assert(
      fc.property(
        largeNumberText,
        fc.array(member, { maxLength: 4 }),
        fc.array(member, { maxLength: 4 }),
        space,
        fc.nat({ max: 3 }),
        (digits, before, after, ws, position) => {
          const members = [
            ...before.map(([k, v]) => `${ws}"${k}"${ws}:${ws}${JSON.stringify(v)}`),
            `${ws}"id"${ws}:${ws}${digits}`,
            '"jsonrpc":"2.0","method":"ping"',
            ...after.map(([k, v]) => `${ws}"${k}"${ws}:${ws}${JSON.stringify(v)}`),
          ]
          const message = `{${members.join(',')}${ws}}`
          const others = Array.from(
            { length: position },
            (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`,
          )
          const batch = position > 0
          const text = batch ? `[${ws}${[...others, message].join(`,${ws}`)}]` : message
          const read = readJsonRpcBody(Buffer.from(text))
          assert.ok(!isBodyProblem(read), text)
          const ids = refusalIds(read)
          const mine = batch ? (ids as unknown[])[position] : ids
          assert.ok(mine instanceof LargeNumberId, text)
          assert.equal(mine.text, digits)
          const json = refusalJson('invalid_request', 'Invalid Request', 'r', ids)
          assert.ok(json.includes(`"id":${digits},`), json)
        },
      ),
      { numRuns: 500, seed: 20261128 },
    )
  })

  it('never make the reader throw, whatever is done to the body', () => {
    fc.assert(
      fc.property(largeNumberText, fc.nat(), fc.string({ maxLength: 8 }), (digits, at, junk) => {
        const text = `[{"jsonrpc":"2.0","id":${digits},"method":"m"},{"id":${digits}}]`
        const cut = at % (text.length + 1)
        readJsonRpcBody(Buffer.from(text.slice(0, cut) + junk + text.slice(cut)))
      }),
      { numRuns: 1000, seed: 20261128 },
    )
  })
})
