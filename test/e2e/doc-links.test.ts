/**
 * Every relative link in the README and docs/ leads somewhere: the file exists and, when the link
 * names a heading (`security.md#…`), that heading is in it, as GitHub writes heading anchors.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, it } from 'node:test'
import { ROOT } from '../helpers/stack.js'

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces made hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-')
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)))
}

/** The dead relative links of `file` (relative to the repository), as "link: why". */
function deadLinks(file: string): string[] {
  const path = join(ROOT, file)
  const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, '')
  const dead: string[] = []
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1]!
    if (/^[a-z]+:/i.test(link)) continue
    const [target = '', anchor] = link.split('#')
    const to = target === '' ? path : normalize(join(dirname(path), target))
    if (!existsSync(to)) dead.push(`${link}: no such file`)
    else if (anchor && to.endsWith('.md') && !anchors(to).has(anchor))
      dead.push(`${link}: no such heading`)
  }
  return dead
}

describe('documentation links', () => {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ]
  for (const file of files) {
    it(`${file}: every relative link and heading anchor exists`, () => {
      assert.deepEqual(deadLinks(file), [])
    })
  }

  it('the anchor rule: headings with code, punctuation and case', () => {
    assert.equal(slug('`burrow up` on the user’s machine'), 'burrow-up-on-the-users-machine')
    assert.equal(slug('Plans, quotas and the API'), 'plans-quotas-and-the-api')
    assert.equal(slug('Who may call a tunnel'), 'who-may-call-a-tunnel')
  })
})
