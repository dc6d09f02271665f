// The scan of an agent's raw body before it is parsed: nesting depth, and members named twice in
// one object (which servers' parsers read differently), in every spelling JSON allows; and
// hostile bodies (huge, many objects, unfinished, not JSON), which it reads in one pass.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { scanBody } from '../../src/mcp/body-scan.js'

const scan = (text: string, stop = 64) => scanBody(Buffer.from(text), stop)
const repeats = (text: string) => Object.fromEntries(scan(text).repeated ?? [])

describe('scanBody', () => {
  it('measures nesting, and stops once it passes the bound', () => {
    assert.equal(scan('{"a":[{"b":[]}]}').depth, 4)
    assert.equal(scan('"[[[[" ').depth, 0)
    assert.equal(scan('[[[[[[[[[[', 3).depth, 4)
  })

  it('finds a member named twice, in the message or deeper, once per message', () => {
    assert.deepEqual(repeats('{"id":1,"id":2}'), { '-1': { name: 'id', inMessage: true } })
    assert.deepEqual(repeats('{"p":{"name":"a","x":1,"name":"b"},"p2":{"q":1,"q":2}}'), {
      '-1': { name: 'name', inMessage: false },
    })
    assert.deepEqual(repeats('[{"a":1},{"b":1,"b":2},{"c":{"d":1,"d":1}},[{"e":1,"e":1}]]'), {
      1: { name: 'b', inMessage: true },
      2: { name: 'd', inMessage: false },
      3: { name: 'e', inMessage: false },
    })
  })

  it('reads names as JSON.parse does: escapes, non-ASCII, whitespace before the colon', () => {
    assert.deepEqual(repeats('{"name":1,"na\\u006de":2}'), {
      '-1': { name: 'name', inMessage: true },
    })
    assert.deepEqual(repeats('{"\u00e9":1, "\\u00e9" \r\n\t :2}'), {
      '-1': { name: '\u00e9', inMessage: true },
    })
    assert.deepEqual(repeats('{"a\\"b":1,"a\\"b":2}'), { '-1': { name: 'a"b', inMessage: true } })
    // A name and its escaped backslash are different names.
    assert.equal(scan('{"a\\\\":1,"a":2}').repeated, null)
  })

  it('takes no string value, array element or name of another object for a repeat', () => {
    for (const text of [
      '{"name":"name","x":{"name":1},"list":[{"name":2},{"name":3}]}',
      '{"s":"\\"name\\":1,\\"name\\":2","name":1}',
      '["a","a",{"a":1},{"a":1}]',
      '{"a":{},"b":{},"c":[]}',
    ]) {
      assert.equal(scan(text).repeated, null, text)
    }
  })

  it('never throws on text that is not JSON, and does not run past its end', () => {
    for (const text of ['', '{', '{"a', '{"a":1,"a"', '}}}]]]', '{"a"  ', '\\"', '{"a":1,"a":']) {
      assert.doesNotThrow(() => scan(text), text)
    }
    assert.deepEqual(repeats('{"a":1,"a":'), { '-1': { name: 'a', inMessage: true } })
  })

  it('reads a body of many objects and names in one pass', () => {
    // 4 MiB of small objects, of distinct names and of a name repeated in one object.
    const objects = `[${'{"a":1,"b":{"c":[1]}},'.repeat(180_000)}{}]`
    assert.equal(scan(objects).repeated, null)
    const names = `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(',')}}`
    assert.equal(scan(names).repeated, null)
    const late = `${names.slice(0, -1)},"k199999":1}`
    assert.deepEqual(repeats(late), { '-1': { name: 'k199999', inMessage: true } })
    // Long names that share a prefix are told apart, and a repeat among them found.
    const prefix = 'p'.repeat(4096)
    const similar = `{${Array.from({ length: 16 }, (_, i) => `"${prefix}${i}":0`).join(',')}}`
    assert.equal(scan(similar).repeated, null)
    assert.equal(repeats(`${similar.slice(0, -1)},"${prefix}7":1}`)['-1']?.name, `${prefix}7`)
    const longName = `{"${'x'.repeat(1 << 20)}":1,"${'x'.repeat(1 << 20)}":2}`
    assert.equal(scan(longName).repeated?.get(-1)?.name.length, 1 << 20)
  })
})
