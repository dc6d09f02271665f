/**
 * Which agent each task of a stdio server belongs to (MCP 2025-11-25 tasks). A stdio server has
 * one client, so its SDK keeps every agent's tasks in one store: `tasks/list` names them all, and
 * `tasks/get`, `tasks/result` and `tasks/cancel` serve whoever names a task's id. The backend
 * therefore remembers the task each call created for the agent that made it (its session, or
 * the ask group of a 2026-07-28 agent: see `SessionSink.askGroup`), answers a request naming a
 * task another agent holds (to read or cancel it, or as its related task) as the SDK answers an
 * unknown one, leaves other agents' tasks out of a listing, and sends a task's status
 * notifications to its agent alone. A server can send a
 * task's status before the answer that creates it (a task done at once): such a status is held,
 * briefly, until that answer names the task's agent. Bounded: past `MAX_TASKS` the oldest task is
 * forgotten, and no agent can then reach it; past `MAX_EARLY_TASKS` the oldest held statuses go.
 */
import {
  errorResponse,
  isRecord,
  JSONRPC_CODE,
  type JsonRpcError,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '@burrow/protocol'
import { askGroup, type SessionSink } from './mcp-backend.js'
import { relatedTaskId } from './task-params.js'

/** Tasks remembered at once; the oldest is forgotten past it. */
export const MAX_TASKS = 10_000

/** Tasks whose status came before the answer creating them, held at once; the oldest go past it. */
export const MAX_EARLY_TASKS = 256
/** Statuses held per such task; later ones are dropped. */
export const MAX_EARLY_STATUSES = 16
/** How long a status waits for the answer that creates its task. */
export const EARLY_STATUS_MS = 5_000

/** Requests that name one task by `params.taskId`. */
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/cancel'])

/** What the backend knows of a session: its id and its sink's ask group. */
interface Holder {
  readonly id: string
  readonly sink: SessionSink
}

/** The owner key of `session`: its ask group when it has one, else the session itself. */
function ownerOf(session: Holder): string {
  const group = askGroup(session)
  return typeof group === 'string' ? `group:${group}` : `session:${session.id}`
}

/** The task a result creates (`CreateTaskResult`), or null. */
function createdTaskId(result: Readonly<Record<string, unknown>>): string | null {
  const task = result.task
  return isRecord(task) && typeof task.taskId === 'string' ? task.taskId : null
}

/** The answer to `request` naming `taskId`, a task its agent does not hold: as the SDK answers. */
function notFound(request: JsonRpcRequest, taskId: unknown): JsonRpcError {
  const shown = typeof taskId === 'string' ? taskId.slice(0, 200) : String(taskId)
  return errorResponse(request.id, JSONRPC_CODE.invalidParams, `Task not found: ${shown}`)
}

/** Tasks of one stdio server, by id, with the agent each belongs to (oldest first). */
export class TaskOwners {
  readonly #owners = new Map<string, string>()
  /** Statuses of tasks no answer has created yet, with when they came (oldest first). */
  readonly #early = new Map<
    string,
    { readonly at: number; readonly statuses: JsonRpcNotification[] }
  >()
  readonly #max: number
  readonly #now: () => number

  constructor(max = MAX_TASKS, now: () => number = () => performance.now()) {
    this.#max = max
    this.#now = now
  }

  /**
   * The error `request` of `session` is answered with when it names another agent's task: as
   * the task a `tasks/*` request reads or cancels, or as the related task of any request (the
   * server's SDK would queue that request's answer, and the questions it asks, in the other
   * agent's task, and mark that task as waiting for input).
   */
  refusal(session: Holder, request: JsonRpcRequest): JsonRpcError | null {
    const related = relatedTaskId(request.params)
    if (related !== null && this.#owners.get(related) !== ownerOf(session)) {
      return notFound(request, related)
    }
    if (!TASK_METHODS.has(request.method)) return null
    const taskId = request.params?.taskId
    if (typeof taskId === 'string' && this.#owners.get(taskId) === ownerOf(session)) return null
    return notFound(request, taskId)
  }

  /**
   * The child's `answer` to `method` of `session`, as that agent may see it: a task it creates is
   * recorded as the agent's; a `tasks/list` keeps the agent's own tasks only.
   */
  answered(session: Holder, method: string, answer: JsonRpcResponse): JsonRpcResponse {
    if (!('result' in answer)) return answer
    const created = createdTaskId(answer.result)
    if (created !== null) this.#claim(created, ownerOf(session))
    const tasks = answer.result.tasks
    if (method !== 'tasks/list' || !Array.isArray(tasks)) return answer
    const owner = ownerOf(session)
    const own = tasks.filter(
      (t) => isRecord(t) && typeof t.taskId === 'string' && this.#owners.get(t.taskId) === owner,
    )
    return { ...answer, result: { ...answer.result, tasks: own } }
  }

  /**
   * The sessions among `sessions` the `notifications/tasks/status` `status` may reach: its task's
   * agent's. A status of a task no answer has created yet reaches none now: it is held for the
   * answer that creates it (`held`).
   */
  audience<S extends Holder>(status: JsonRpcNotification, sessions: Iterable<S>): S[] {
    const taskId = status.params?.taskId
    if (typeof taskId !== 'string') return []
    const owner = this.#owners.get(taskId)
    if (owner === undefined) {
      this.#hold(taskId, status)
      return []
    }
    return [...sessions].filter((session) => ownerOf(session) === owner)
  }

  /**
   * The statuses held for the task `answer` created, if that task is `session`'s agent's: to be
   * delivered to `session` after the answer. Taken once.
   */
  held(session: Holder, answer: JsonRpcResponse): JsonRpcNotification[] {
    if (this.#early.size === 0 || !('result' in answer)) return []
    const created = createdTaskId(answer.result)
    if (created === null) return []
    const early = this.#early.get(created)
    if (early === undefined) return []
    this.#early.delete(created)
    const fresh = this.#now() - early.at <= EARLY_STATUS_MS
    return fresh && this.#owners.get(created) === ownerOf(session) ? early.statuses : []
  }

  /** Forget every task (the child is gone, and its tasks with it). */
  clear(): void {
    this.#owners.clear()
    this.#early.clear()
  }

  /** Tasks remembered (tests). */
  get size(): number {
    return this.#owners.size
  }

  #hold(taskId: string, status: JsonRpcNotification): void {
    const now = this.#now()
    for (const [id, early] of this.#early) {
      if (now - early.at <= EARLY_STATUS_MS && this.#early.size < MAX_EARLY_TASKS) break
      this.#early.delete(id)
    }
    const early = this.#early.get(taskId)
    if (early === undefined) this.#early.set(taskId, { at: now, statuses: [status] })
    else if (early.statuses.length < MAX_EARLY_STATUSES) early.statuses.push(status)
  }

  #claim(taskId: string, owner: string): void {
    // A task id the server gives again keeps its first agent: no call can take another's task.
    if (this.#owners.has(taskId)) return
    if (this.#owners.size >= this.#max) {
      const oldest = this.#owners.keys().next()
      if (!oldest.done) this.#owners.delete(oldest.value)
    }
    this.#owners.set(taskId, owner)
  }
}
