/**
 * The shapes rug-pull protection works with: a tunnel's pins in memory, one change as the
 * `tool.changed` webhook reports it, and how a page of `tools/list` was asked for (tool-pins.ts).
 */
import type { RejectedHash } from '../store/rejected-hashes.js'
import type { PinRow } from '../store/tool-pins-store.js'
import type { ListPaging } from './list-paging.js'
import type { RugPullMode } from './policy.js'
import type { Redactor } from './redactor.js'

/** One change, for the `tool.changed` webhook. */
export interface ToolChange {
  readonly tunnelId: string
  readonly accountId: string
  readonly tool: string
  readonly change: 'changed' | 'new' | 'removed' | 'renamed'
  readonly renamedFrom: string | null
  /** Another tool of the tunnel whose name this one's looks like (pin-lookalikes.ts), or null. */
  readonly looksLike: string | null
  readonly approvedHash: string | null
  readonly currentHash: string | null
  readonly at: Date
}

/** A tunnel's pins in memory; `rounds` are the lists being paged, by their next cursor. */
export interface PinState extends ListPaging {
  baselined: boolean
  readonly pins: Map<string, PinRow>
  /**
   * Definitions rejected of tools the owner forgot since (a removal acknowledged), by name: no
   * pins, but such a definition listed again is `rejected` (store/pin-rows.ts `isForgotten`).
   */
  readonly forgotten: Map<string, readonly RejectedHash[]>
  listChangedAt: string | null
  readonly loadedAt: number
  /** Characters of definitions kept (`keptChars`), counted as they are added (`KeptDefinitions`). */
  definitionChars: number
}

/** How a page of `tools/list` was asked for and answered. */
export interface ListPage {
  /** The request's `params.cursor`; null for the first page. */
  readonly cursor: string | null
  /** The answer's `result.nextCursor`; null when this page ends the list. */
  readonly nextCursor: string | null
  readonly mode: RugPullMode
  readonly zeroKnowledge: boolean
  /** The tunnel's redaction: definitions are kept masked, as call history is. */
  readonly redactor?: Redactor | null
}
