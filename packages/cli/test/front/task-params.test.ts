/**
 * task-params: the related task a request names, and its params as a receiver without tasks reads
 * them (no `task`, no related task; everything else kept, hostile shapes left alone).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RELATED_TASK, relatedTaskId, withoutTasks } from '../../src/front/task-params.js'

describe('task-params', () => {
  it('reads the related task only when it is an object with a string taskId', () => {
    assert.equal(relatedTaskId({ _meta: { [RELATED_TASK]: { taskId: 't1' } } }), 't1')
    for (const params of [
      undefined,
      {},
      { _meta: null },
      { _meta: 'x' },
      { _meta: { [RELATED_TASK]: 't1' } },
      { _meta: { [RELATED_TASK]: { taskId: 1 } } },
      { _meta: { [RELATED_TASK]: null } },
    ]) {
      assert.equal(relatedTaskId(params), null, JSON.stringify(params))
    }
  })

  it('drops the task augmentation and the related task, and keeps the rest', () => {
    const plain = { name: 'echo', arguments: { a: 1 }, _meta: { progressToken: 3 } }
    assert.equal(withoutTasks(plain), plain)
    assert.deepEqual(withoutTasks({ ...plain, task: { ttl: 1000 } }), plain)
    const related = { ...plain, _meta: { progressToken: 3, [RELATED_TASK]: { taskId: 't1' } } }
    assert.deepEqual(withoutTasks(related), plain)
    assert.deepEqual(withoutTasks({ ...related, task: {} }), plain)
    // A related task of any shape goes: a receiver without tasks has none to relate to.
    assert.deepEqual(withoutTasks({ name: 'x', _meta: { [RELATED_TASK]: 'junk' } }), {
      name: 'x',
      _meta: {},
    })
    // A `_meta` that is not an object is left for the upstream to judge.
    assert.deepEqual(withoutTasks({ name: 'x', _meta: 'junk', task: null }), {
      name: 'x',
      _meta: 'junk',
    })
  })
})
