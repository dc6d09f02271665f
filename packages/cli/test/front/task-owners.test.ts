/**
 * TaskOwners: which agent each task of a stdio server is, so that no agent lists, reads, cancels
 * or hears of another's; hostile ids (not strings, repeated, unknown) find nothing; bounded.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '@burrow/protocol'
import type { SessionSink } from '../../src/front/mcp-backend.js'
import {
  EARLY_STATUS_MS,
  MAX_EARLY_STATUSES,
  MAX_EARLY_TASKS,
  TaskOwners,
} from '../../src/front/task-owners.js'

function holder(id: string, askGroup?: string): { id: string; sink: SessionSink } {
  const sink: SessionSink = { deliver: () => {}, end: () => {}, ...(askGroup ? { askGroup } : {}) }
  return { id, sink }
}

function request(method: string, taskId: unknown): JsonRpcRequest {
  return { jsonrpc: '2.0', id: 7, method, params: { taskId } }
}

function status(taskId: unknown, state = 'working'): JsonRpcNotification {
  return { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId, status: state } }
}

function created(taskId: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id: 1, result: { task: { taskId, status: 'working' } } }
}

describe('TaskOwners', () => {
  it("refuses every request naming a task that is not the agent's, as an unknown task", () => {
    const owners = new TaskOwners()
    const a = holder('a')
    const b = holder('b')
    owners.answered(a, 'tools/call', created('t1'))
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      assert.equal(owners.refusal(a, request(method, 't1')), null)
      const refused = owners.refusal(b, request(method, 't1'))
      assert.equal(refused && 'error' in refused && refused.error.code, -32602)
      assert.equal(refused?.id, 7)
    }
    for (const taskId of [undefined, 1, { t: 't1' }, ['t1'], 'x'.repeat(100_000)]) {
      const refused = owners.refusal(a, request('tasks/get', taskId))
      assert.ok(refused && 'error' in refused && refused.error.message.length < 300)
    }
    assert.equal(owners.refusal(b, request('tools/list', 't1')), null)
  })

  it("refuses a request whose related task is not the agent's, and lets its own through", () => {
    const owners = new TaskOwners()
    const a = holder('a')
    const b = holder('b')
    owners.answered(a, 'tools/call', created('t1'))
    const related = (taskId: unknown): JsonRpcRequest => ({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'echo', _meta: { 'io.modelcontextprotocol/related-task': { taskId } } },
    })
    assert.equal(owners.refusal(a, related('t1')), null)
    for (const [who, taskId] of [
      [b, 't1'],
      [a, 'unknown'],
      [b, 'x'.repeat(100_000)],
    ] as const) {
      const refused = owners.refusal(who, related(taskId))
      assert.ok(refused && 'error' in refused, JSON.stringify(refused))
      assert.equal(refused.error.code, -32602)
      assert.equal(refused.id, 9)
      assert.ok(refused.error.message.length < 300)
    }
    // Not a related task the SDK reads (the front refuses these as malformed before here).
    assert.equal(owners.refusal(b, related(1)), null)
    // A tasks/* request naming its own task, related to another's, is still refused.
    const mixed: JsonRpcRequest = {
      ...request('tasks/get', 't2'),
      params: { taskId: 't2', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } },
    }
    owners.answered(b, 'tools/call', created('t2'))
    assert.equal(owners.refusal(b, mixed)?.id, 7)
  })

  it("lists an agent's own tasks only, and a task id given again keeps its first agent", () => {
    const owners = new TaskOwners()
    const a = holder('a')
    const b = holder('b')
    owners.answered(a, 'tools/call', created('t1'))
    owners.answered(b, 'tools/call', created('t2'))
    owners.answered(b, 'tools/call', created('t1'))
    const tasks = [{ taskId: 't1' }, { taskId: 't2' }, { taskId: 't3' }, 'junk', null]
    const listing: JsonRpcResponse = { jsonrpc: '2.0', id: 3, result: { tasks, nextCursor: 'c' } }
    const seen = owners.answered(b, 'tasks/list', listing)
    assert.deepEqual(seen, {
      jsonrpc: '2.0',
      id: 3,
      result: { tasks: [{ taskId: 't2' }], nextCursor: 'c' },
    })
    assert.equal(owners.refusal(b, request('tasks/result', 't1'))?.id, 7)
  })

  it('sends a status to its agent alone; sessionless agents are told apart by ask group', () => {
    const owners = new TaskOwners()
    const seatA1 = holder('s1', 'agent a')
    const seatA2 = holder('s2', 'agent a')
    const seatB = holder('s3', 'agent b')
    const session = holder('s4')
    owners.answered(seatA1, 'tools/call', created('t1'))
    const all = [seatA1, seatA2, seatB, session]
    assert.deepEqual(owners.audience(status('t1'), all), [seatA1, seatA2])
    assert.deepEqual(owners.audience(status('unknown'), all), [])
    assert.deepEqual(owners.audience(status(5), all), [])
    assert.equal(owners.refusal(seatA2, request('tasks/get', 't1')), null)
    assert.notEqual(owners.refusal(seatB, request('tasks/get', 't1')), null)
  })

  it('forgets its oldest task past its bound, and everything when cleared', () => {
    const owners = new TaskOwners(3)
    const a = holder('a')
    for (const id of ['t1', 't2', 't3', 't4']) owners.answered(a, 'tools/call', created(id))
    assert.equal(owners.size, 3)
    assert.notEqual(owners.refusal(a, request('tasks/get', 't1')), null)
    assert.equal(owners.refusal(a, request('tasks/get', 't4')), null)
    owners.clear()
    assert.equal(owners.size, 0)
  })
  it("holds a status sent before the answer creating its task, for that answer's agent alone", () => {
    const owners = new TaskOwners()
    const a = holder('a')
    const b = holder('b')
    const done = status('t1', 'completed')
    // The server finished the task before its answer to the call left it (found by a review).
    assert.deepEqual(owners.audience(done, [a, b]), [])
    assert.deepEqual(owners.held(b, created('t2')), [])
    const answer = owners.answered(a, 'tools/call', created('t1'))
    assert.deepEqual(owners.held(a, answer), [done])
    assert.deepEqual(owners.held(a, answer), [], 'taken once')
    // Another agent's answer naming a task already held for another gets nothing of it.
    owners.audience(status('t3'), [a, b])
    owners.answered(a, 'tools/call', created('t3'))
    assert.deepEqual(owners.held(b, created('t3')), [])
  })

  it('holds early statuses briefly and within bounds', () => {
    let now = 0
    const owners = new TaskOwners(100, () => now)
    const a = holder('a')
    for (let i = 0; i < MAX_EARLY_STATUSES + 5; i++) owners.audience(status('many', `s${i}`), [a])
    owners.answered(a, 'tools/call', created('many'))
    assert.equal(owners.held(a, created('many')).length, MAX_EARLY_STATUSES)
    owners.audience(status('late'), [a])
    now += EARLY_STATUS_MS + 1
    owners.answered(a, 'tools/call', created('late'))
    assert.deepEqual(owners.held(a, created('late')), [], 'too old: dropped')
    // A flood of statuses for tasks never created keeps the newest MAX_EARLY_TASKS.
    for (let i = 0; i < MAX_EARLY_TASKS * 4; i++) owners.audience(status(`junk-${i}`), [a])
    owners.answered(a, 'tools/call', created('junk-0'))
    assert.deepEqual(owners.held(a, created('junk-0')), [])
    const last = `junk-${MAX_EARLY_TASKS * 4 - 1}`
    owners.answered(a, 'tools/call', created(last))
    assert.equal(owners.held(a, created(last)).length, 1)
  })
})
