/**
 * What a request's params say about MCP 2025-11-25 tasks: the task it asks to become
 * (`params.task`) and the task it belongs to (`params._meta["io.modelcontextprotocol/related-task"]`).
 */
import { isRecord } from '@burrow/protocol'

type Params = Readonly<Record<string, unknown>>

/** The `_meta` key MCP names a request's task with (2025-11-25). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task'

/** The task id `params` name as their related task, or null. */
export function relatedTaskId(params: Params | undefined): string | null {
  const meta = params?._meta
  if (!isRecord(meta)) return null
  const task = meta[RELATED_TASK]
  return isRecord(task) && typeof task.taskId === 'string' ? task.taskId : null
}

/**
 * `params` as a receiver that offers no tasks must read them: without the task augmentation
 * (`task`) or a related task, so that the request is handled as a plain one (MCP 2025-11-25:
 * such a receiver processes the request normally). The same object when there is neither.
 */
export function withoutTasks(params: Params): Params {
  const meta = params._meta
  const related = isRecord(meta) && Object.hasOwn(meta, RELATED_TASK)
  if (!Object.hasOwn(params, 'task') && !related) return params
  const { task: _task, ...rest } = params
  if (!related) return rest
  const { [RELATED_TASK]: _related, ...otherMeta } = meta
  return { ...rest, _meta: otherMeta }
}
