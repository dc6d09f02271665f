// Allow and deny globs over tool names, and the tools/list filter built on them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { filterToolsList } from '../../src/governance/filter-tools-list.js'
import { RateLimitRules } from '../../src/governance/rate-limit-demands.js'
import { compileGlob, matchesGlob, ToolRules } from '../../src/governance/tool-rules.js'

describe('ToolRules', () => {
  it('allows what an allow glob matches and no deny glob does', () => {
    const rules = new ToolRules({ allow: ['*'], deny: ['*delete*', 'shell__*'] })
    assert.equal(rules.allows('files__read'), true)
    assert.equal(rules.allows('files__delete_all'), false)
    assert.equal(rules.allows('shell__exec'), false)
    assert.equal(rules.allows('my_shell__exec'), true)
    const only = new ToolRules({ allow: ['docs__*', 'search'], deny: [] })
    assert.equal(only.allows('docs__find'), true)
    assert.equal(only.allows('search'), true)
    assert.equal(only.allows('searcher'), false)
  })

  it('treats / and leading dots in names as ordinary characters', () => {
    const rules = new ToolRules({ allow: ['*'], deny: ['admin/*'] })
    assert.equal(rules.allows('a/b'), true)
    assert.equal(rules.allows('.hidden'), true)
    assert.equal(rules.allows('admin/drop'), false)
  })

  it('matches in linear time, whatever the glob', () => {
    const glob = `${'*a'.repeat(60)}*b`
    const rules = new ToolRules({ allow: [glob], deny: [glob] })
    const rates = new RateLimitRules([{ on: 'tool', pattern: glob, limit: 1, perSeconds: 1 }])
    const started = performance.now()
    assert.equal(rules.allows('a'.repeat(1024)), false)
    assert.equal(rules.allows(`${'a'.repeat(60)}b`), false, 'denied as well as allowed')
    const call = {
      kind: 'request',
      method: 'tools/call',
      target: { kind: 'tool', name: 'a'.repeat(1000) },
    }
    assert.equal(rates.demands('t', [call as never]).length, 0)
    assert.ok(
      performance.now() - started < 500,
      `took ${Math.round(performance.now() - started)} ms`,
    )
  })

  it('keeps the glob syntax: * ? [..] [^..] {a,b} and quoting', () => {
    const m = (glob: string, name: string) => matchesGlob(compileGlob(glob), name)
    assert.equal(m('search*', 'search'), true)
    assert.equal(m('a?c', 'abc'), true)
    assert.equal(m('a?c', 'ac'), false)
    assert.equal(m('[a-c]x', 'bx'), true)
    assert.equal(m('[^abc]x', 'ax'), false)
    assert.equal(m('[^abc]x', 'dx'), true)
    assert.equal(m('{read,write}_*', 'write_file'), true)
    assert.equal(m('{a,{b,c}}', 'c'), true)
    assert.equal(m('{a}', '{a}'), true)
    assert.equal(m('a\\*b', 'a*b'), true)
    assert.equal(m('a\\*b', 'axb'), false)
    assert.equal(m('file.*', 'fileXtxt'), false, 'a dot is a dot')
    assert.equal(m('(a|b)', 'a'), false, 'regular expression syntax is itself')
    assert.equal(m('*', 'line\nbreak'), true)
  })

  it('refuses and counts names too long to match', () => {
    const rules = new ToolRules({ allow: ['*'], deny: ['secret*'] })
    assert.equal(rules.allows('x'.repeat(2000)), false)
    assert.equal(new ToolRules({ allow: ['*'], deny: [] }).allows('x'.repeat(2000)), true)
    const rates = new RateLimitRules([{ on: 'tool', pattern: 'search', limit: 1, perSeconds: 1 }])
    const call = {
      kind: 'request',
      method: 'tools/call',
      target: { kind: 'tool', name: 'x'.repeat(2000) },
    }
    assert.equal(rates.demands('t', [call as never]).length, 1)
  })

  it('filters a tools/list answer, keeping its other fields', () => {
    const rules = new ToolRules({ allow: ['*'], deny: ['drop*'] })
    const answer = {
      jsonrpc: '2.0',
      id: 3,
      result: {
        tools: [{ name: 'read' }, { name: 'drop_table' }, { title: 'no name' }],
        nextCursor: 'c2',
      },
    }
    const { response, removed } = filterToolsList(answer, (n) => rules.allows(n))
    assert.deepEqual(removed, ['drop_table'])
    assert.deepEqual(response, {
      jsonrpc: '2.0',
      id: 3,
      result: { tools: [{ name: 'read' }, { title: 'no name' }], nextCursor: 'c2' },
    })
    assert.equal(answer.result.tools.length, 3, 'the input is not changed')
  })
})
