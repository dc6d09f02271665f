/**
 * The four paginated `*\/list` methods as the aggregator treats them: where the items are in the
 * result, which server capability offers them, whether their names get the upstream prefix, and
 * which `list_changed` notification makes them stale.
 */

import { ownEntry } from '@burrow/protocol'

/** One paginated list method. */
export interface ListMethod {
  readonly method: string
  /** The result member holding the page's items. */
  readonly itemsKey: string
  /** The server capability that offers the list. */
  readonly capability: 'tools' | 'prompts' | 'resources'
  /** Item names become `<upstream>__<name>`; otherwise items pass unchanged (routed by URI). */
  readonly prefixed: boolean
  /** The notification that says the list changed. */
  readonly changedBy: string
}

/** The list methods by name. */
export const LIST_METHODS: Readonly<Record<string, ListMethod>> = Object.freeze({
  'tools/list': {
    method: 'tools/list',
    itemsKey: 'tools',
    capability: 'tools',
    prefixed: true,
    changedBy: 'notifications/tools/list_changed',
  },
  'prompts/list': {
    method: 'prompts/list',
    itemsKey: 'prompts',
    capability: 'prompts',
    prefixed: true,
    changedBy: 'notifications/prompts/list_changed',
  },
  'resources/list': {
    method: 'resources/list',
    itemsKey: 'resources',
    capability: 'resources',
    prefixed: false,
    changedBy: 'notifications/resources/list_changed',
  },
  'resources/templates/list': {
    method: 'resources/templates/list',
    itemsKey: 'resourceTemplates',
    capability: 'resources',
    prefixed: false,
    changedBy: 'notifications/resources/list_changed',
  },
})

/** List method `method`, or undefined for any other method (inherited names included). */
export function listMethod(method: string): ListMethod | undefined {
  return ownEntry(LIST_METHODS, method)
}

/** The list methods a `list_changed` notification makes stale (none for other methods). */
export function listsChangedBy(notification: string): ListMethod[] {
  return Object.values(LIST_METHODS).filter((list) => list.changedBy === notification)
}

/** The distinct `list_changed` notifications of the lists a server with `capabilities` offers. */
export function changeNotificationsFor(
  capabilities: Readonly<Record<string, unknown>> | undefined,
): string[] {
  const offered = Object.values(LIST_METHODS).filter((l) => capabilities?.[l.capability])
  return [...new Set(offered.map((l) => l.changedBy))]
}
