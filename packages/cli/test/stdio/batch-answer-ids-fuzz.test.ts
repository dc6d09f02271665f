/**
 * Property tests of the streaming scan of a stdout line too long to read (batch-answer-ids.ts),
 * against `JSON.parse` as the normal path reads a line: for any valid JSON line (a batch or a single
 * message; strings holding quotes, brackets, backslashes, escapes of every kind and astral
 * characters; ids of every JSON type and numbers written as `1e2`, `-0`, `1.0` or past 2^53;
 * repeated members; members named `id` nested anywhere), fed in parts cut anywhere (inside a
 * character's UTF-8 bytes too), the scan finds exactly the ids the parsed line's answers and
 * requests carry; and a valid line cut short is never read as JSON. Fixed seeds: a failure is
 * reproduced by running the test again.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { isJsonRpcId, isRecord } from '@burrow/protocol'
import { BatchAnswerIds, type BatchAnswers } from '../../src/stdio/batch-answer-ids.js'

/** JSON as written: numbers and literals as their text, strings with how they are escaped. */
type Node =
  | { readonly t: 'text'; readonly text: string }
  | { readonly t: 'str'; readonly s: string; readonly esc: number }
  | { readonly t: 'arr'; readonly items: readonly Node[] }
  | { readonly t: 'obj'; readonly members: readonly (readonly [Node, Node])[] }

const str = (s: string, esc = 0): Node => ({ t: 'str', s, esc })

/** Pieces of strings: what could confuse a scan that does not read strings as JSON does. */
const piece = fc.oneof(
  fc.constantFrom('"', '\\', '[', ']', '{', '}', ',', ':', 'id', '"id":1', '/', ' ', '\u0000'),
  fc.constantFrom('\u001f', '\n', 'é', '€', '😀', '\ud800', '\udc00', 'result', 'method', 'error'),
  fc.string({ maxLength: 3 }),
)
/** A string, escaped in one of four ways: as needed, with `\/`, all `\u`, non-ASCII as `\u`. */
const anyString = (maxLength: number): fc.Arbitrary<Node> =>
  fc
    .tuple(fc.array(piece, { maxLength }), fc.integer({ min: 0, max: 3 }))
    .map(([parts, esc]) => str(parts.join(''), esc))
const name = fc.oneof(
  fc
    .constantFrom('id', 'result', 'error', 'method', 'jsonrpc', 'params', '__proto__', 'Id', 'id ')
    .map((s) => str(s)),
  fc
    .tuple(fc.constantFrom('id', 'result', 'error', 'method'), fc.integer({ min: 1, max: 3 }))
    .map(([s, esc]) => str(s, esc)),
  anyString(4),
)
const numberText = fc.oneof(
  fc.constantFrom('0', '-0', '1', '1e2', '1E+2', '10e-1', '1.0', '-0.0', '1.5', '0.1', '5e-324'),
  fc.constantFrom('9007199254740991', '9007199254740992', '-9007199254740993', '1e400', '1e-400'),
  fc.constantFrom('123456789012345678901234567890', '1.7976931348623157e308'),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
)
const scalar: fc.Arbitrary<Node> = fc.oneof(
  numberText.map((text): Node => ({ t: 'text', text })),
  fc.constantFrom('true', 'false', 'null').map((text): Node => ({ t: 'text', text })),
  anyString(6),
)
const { tree } = fc.letrec<{ tree: Node }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('tree'), { maxLength: 3 }).map((items): Node => ({ t: 'arr', items })),
    fc
      .array(fc.tuple(name, tie('tree')), { maxLength: 4 })
      .map((members): Node => ({ t: 'obj', members })),
  ),
}))
/** A message-like object: ids of every type, repeated members, answers' and requests' names. */
const message: fc.Arbitrary<Node> = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant(str('id')), fc.oneof(scalar, tree)),
      fc.tuple(
        fc.constantFrom('result', 'error', 'method').map((s) => str(s)),
        tree,
      ),
      fc.tuple(name, tree),
    ),
    { maxLength: 6 },
  )
  .map((members): Node => ({ t: 'obj', members }))
const line = fc.oneof(
  fc
    .array(fc.oneof({ arbitrary: message, weight: 5 }, { arbitrary: tree, weight: 1 }), {
      maxLength: 5,
    })
    .map((items): Node => ({ t: 'arr', items })),
  message,
)
const space = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r', '  \r\n ')

const SHORT: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '"': '\\"',
  '\\': '\\\\',
}

function escapeUnit(code: number, esc: number): string {
  const u = `\\u${code.toString(16).padStart(4, '0')}`
  const ch = String.fromCharCode(code)
  if (esc === 2) return u.toUpperCase().replace('\\U', '\\u')
  if (SHORT[ch] !== undefined) return SHORT[ch]
  if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff) || (esc === 3 && code > 0x7f)) return u
  return esc === 1 && ch === '/' ? '\\/' : ch
}

function written(node: Node, ws: () => string): string {
  if (node.t === 'text') return node.text
  if (node.t === 'arr') {
    return `[${ws()}${node.items.map((n) => written(n, ws)).join(`${ws()},${ws()}`)}${ws()}]`
  }
  if (node.t === 'obj') {
    const members = node.members.map(
      ([k, v]) => `${written(k, ws)}${ws()}:${ws()}${written(v, ws)}`,
    )
    return `{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}`
  }
  let out = '"'
  for (let i = 0; i < node.s.length; i++) {
    const code = node.s.charCodeAt(i)
    const next = node.s.charCodeAt(i + 1)
    const pair = code >= 0xd800 && code < 0xdc00 && next >= 0xdc00 && next < 0xe000
    if (pair && node.esc < 2) {
      // A surrogate pair written as the character itself (4 UTF-8 bytes).
      out += node.s.slice(i, i + 2)
      i++
    } else out += escapeUnit(code, node.esc)
  }
  return `${out}"`
}

/** What the scan must find in `text`, read as the normal path reads a line (`JSON.parse`). */
function expected(text: string): BatchAnswers | null {
  const first = /^[ \t\r\n]*([[{])/.exec(text)
  if (first === null) return null
  const batch = first[1] === '['
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ids: [], left: 0, requests: [], requestsLeft: 0, json: false, batch }
  }
  const ids = new Map<string, unknown>()
  const requests = new Map<string, unknown>()
  for (const element of Array.isArray(value) ? (value as unknown[]) : [value]) {
    if (!isRecord(element) || !isJsonRpcId(element.id)) continue
    const answer = 'result' in element || 'error' in element
    const into = answer === 'method' in element ? null : answer ? ids : requests
    const key = `${typeof element.id}:${element.id}`
    if (into !== null && !into.has(key)) into.set(key, element.id)
  }
  const kept = (m: Map<string, unknown>) => [...m.values()] as BatchAnswers['ids']
  return { ids: kept(ids), left: 0, requests: kept(requests), requestsLeft: 0, json: true, batch }
}

/** The scan of `bytes` fed in parts cut at `cuts` (taken modulo the length). */
function scanned(bytes: Buffer, cuts: readonly number[]): BatchAnswers | null {
  const scan = new BatchAnswerIds()
  let at = 0
  for (const cut of cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b)) {
    scan.push(bytes.subarray(at, cut))
    at = cut
  }
  scan.push(bytes.subarray(at))
  return scan.finish()
}

/** `found` equals `want`, -0 told apart from 0. */
function assertSame(found: BatchAnswers | null, want: BatchAnswers | null, text: string): void {
  assert.deepEqual(found, want, text)
  for (const key of ['ids', 'requests'] as const) {
    found?.[key].forEach((id, i) => assert.ok(Object.is(id, want?.[key][i]), text))
  }
}

const spaces = fc.array(space, { minLength: 64, maxLength: 64 })
const cuts = fc.array(fc.nat(), { maxLength: 6 })

describe('BatchAnswerIds against JSON.parse (property)', () => {
  it('finds exactly the ids of the answers and requests JSON.parse reads, in parts cut anywhere', () => {
    let withIds = 0
    fc.assert(
      fc.property(line, spaces, cuts, space, (root, ws, at, trailing) => {
        let k = 0
        const text = ws[63]! + written(root, () => ws[k++ % 63]!) + trailing
        const want = expected(text)
        assert.equal(want?.json, true, text)
        if (want.ids.length + want.requests.length > 0) withIds++
        assertSame(scanned(Buffer.from(text), at), want, text)
      }),
      { numRuns: 4000, seed: 20261130 },
    )
    // The generator makes lines with ids, not only lines without.
    assert.ok(withIds > 400, `${withIds}`)
  })

  it('never reads a valid line cut short as JSON', () => {
    fc.assert(
      fc.property(line, spaces, fc.nat(), cuts, (root, ws, end, at) => {
        let k = 0
        const text = written(root, () => ws[k++ % 64]!)
        const short = Buffer.from(text).subarray(0, end % Buffer.byteLength(text))
        const found = scanned(short, at)
        if (found !== null) assert.equal(found.json, false, short.toString())
      }),
      { numRuns: 2000, seed: 20261130 },
    )
  })
})
