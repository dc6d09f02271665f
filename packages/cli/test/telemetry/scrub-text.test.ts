/** What a crash report's message and stack lose before they leave the machine. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { scrubText } from '../../src/telemetry/scrub-text.js'

describe('scrubText', () => {
  it('redacts tunnel keys, bearer tokens, URL passwords and token parameters', () => {
    assert.equal(
      scrubText('bad key mtk_AbC-123_xyz rejected', null),
      'bad key mtk_[redacted] rejected',
    )
    assert.equal(
      scrubText('Authorization: Bearer abc.def-ghi', null),
      'Authorization: Bearer [redacted]',
    )
    assert.equal(
      scrubText('connect https://ann:s3cret@example.com/x failed', null),
      'connect https://[redacted]@example.com/x failed',
    )
    assert.equal(
      scrubText('GET http://127.0.0.1:4040/?token=abcdef&x=1', null),
      'GET http://127.0.0.1:4040/?token=[redacted]&x=1',
    )
  })

  it('redacts a URL password holding @ whole', () => {
    assert.equal(
      scrubText('connect https://ann:p@ss@example.com/x failed', null),
      'connect https://[redacted]@example.com/x failed',
    )
    assert.equal(
      scrubText('wss://ann:a@b@c@host:443 closed', null),
      'wss://[redacted]@host:443 closed',
    )
  })

  it('redacts a secret whole when a control character or escape sits inside it', () => {
    assert.equal(scrubText('key mtk_abc\u0000def rejected', null), 'key mtk_[redacted] rejected')
    assert.equal(scrubText('key mtk_\u001b[31mSECRET', null), 'key mtk_[redacted]')
    assert.equal(scrubText('Bearer ab\u007fcd', null), 'Bearer [redacted]')
  })

  it('redacts parameters whose names end in a secret word, in the query or the fragment', () => {
    assert.equal(
      scrubText(
        'GET https://x/cb?refresh_token=r1&client_secret=c2&X-Amz-Signature=d3&X-Amz-Credential=e4&sig=f5&code=g6&page=2&monkey=7',
        null,
      ),
      'GET https://x/cb?refresh_token=[redacted]&client_secret=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&sig=[redacted]&code=[redacted]&page=2&monkey=7',
    )
    assert.equal(
      scrubText('redirect to https://x/#access_token=abc&state=1', null),
      'redirect to https://x/#access_token=[redacted]&state=1',
    )
  })

  it('writes the home directory as ~, in paths and file URLs, not in longer names', () => {
    const stack = [
      'Error: x',
      '    at f (/home/ann/projects/app/index.js:1:2)',
      '    at g (file:///home/ann/.npm/_npx/burrow/dist/up.js:3:4)',
      '    at h (/home/anna/other.js:5:6)',
    ].join('\n')
    assert.equal(
      scrubText(stack, '/home/ann'),
      [
        'Error: x',
        '    at f (~/projects/app/index.js:1:2)',
        '    at g (file://~/.npm/_npx/burrow/dist/up.js:3:4)',
        '    at h (/home/anna/other.js:5:6)',
      ].join('\n'),
    )
  })

  it('matches a Windows home with either slash and any case', () => {
    const home = 'C:\\Users\\Ann'
    assert.equal(
      scrubText('at C:\\Users\\Ann\\app\\x.js and file:///c:/users/ann/app/y.js', home),
      'at ~\\app\\x.js and file:///~/app/y.js',
    )
  })

  it('drops text an error quotes from its input (it may be MCP traffic)', () => {
    let parseError = ''
    try {
      JSON.parse('{"secret": "patient record 1234"')
    } catch (err) {
      parseError = (err as Error).message
    }
    const scrubbed = scrubText(parseError, null)
    assert.ok(!scrubbed.includes('patient'), scrubbed)
    assert.equal(
      scrubText('Unexpected token in "tools/call {x}" here', null),
      'Unexpected token in "…" here',
    )
  })

  it('drops the whole input JSON.parse quotes, quotes and newlines inside it included', () => {
    for (const input of [
      '[ "abc def", oops ]',
      '[\n"secret stuff",\n oops]',
      'x{"jsonrpc":"2.0","method":"tools/call","params":{"ssn":"123-45-6789"}}',
      "[\"it's\", 'single' ]",
    ]) {
      let parseError = ''
      try {
        JSON.parse(input)
      } catch (err) {
        parseError = (err as Error).message
      }
      assert.match(parseError, /is not valid JSON$/)
      const scrubbed = scrubText(parseError, null)
      assert.match(scrubbed, /^Unexpected token '.', "…" is not valid JSON$/, scrubbed)
    }
  })

  it('keeps what an error says before the input JSON.parse quotes', () => {
    let parseError = ''
    try {
      JSON.parse('oops')
    } catch (err) {
      parseError = (err as Error).message
    }
    assert.equal(
      scrubText(`reading "state.json": ${parseError}`, null),
      `reading "…": Unexpected token 'o', "…" is not valid JSON`,
    )
    assert.equal(scrubText('"undefined" is not valid JSON', null), '"…" is not valid JSON')
  })

  // A dying process waits for the scrub. When a scheme could start at every word of a run, 100 kB
  // of `a.a.…` took about 9 s and grew with the square of the length: a megabyte would keep this
  // test running for about 15 minutes. Linear, it takes milliseconds.
  it('scrubs a megabyte of dotted words, or of quotes', { timeout: 60_000 }, () => {
    for (const text of ['a.'.repeat(500_000), 'x-1+'.repeat(250_000)]) {
      assert.equal(scrubText(text, '/home/ann'), text)
    }
    assert.equal(scrubText('"x'.repeat(500_000), null), '"…"x'.repeat(250_000))
  })

  it('removes terminal control sequences but keeps newlines and tabs', () => {
    assert.equal(scrubText('a\u001b[31mred\u001b[0m\u0007\n\tb', null), 'ared\n\tb')
  })
})
