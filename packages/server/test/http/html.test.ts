import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { escapeHtml, html, raw } from '../../src/http/html.js'

describe('html', () => {
  it('escapes interpolated text, so markup in user input renders as text', () => {
    const name = `<script>alert("x")</script>&'`
    assert.equal(
      html`<td title="${name}">${name}</td>`.value,
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>',
    )
  })

  it('does not escape nested templates or raw constants twice, and joins lists', () => {
    const rows = ['a<b', 'c'].map((x) => html`<li>${x}</li>`)
    assert.equal(
      html`<ul>${rows}</ul>${raw('&nbsp;')}`.value,
      '<ul><li>a&lt;b</li><li>c</li></ul>&nbsp;',
    )
  })

  it('renders nothing for null, undefined and false, and numbers as text', () => {
    assert.equal(html`${null}${undefined}${false}${0}${true}`.value, '0true')
    assert.equal(escapeHtml('plain'), 'plain')
  })
})
