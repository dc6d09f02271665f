// Allow and deny globs over tool names, and the tools/list filter built on them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { filterToolsList } from '../../src/governance/filter-tools-list.js'
import { ToolRules } from '../../src/governance/tool-rules.js'

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
