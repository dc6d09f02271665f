/** The options of `new ToolPins` (tool-pins.ts). */
import type { Logger } from '@burrow/protocol'
import type { ClusterEvents } from '../cluster/cluster-events.js'
import type { ToolPinsStore } from '../store/tool-pins-store.js'
import type { ToolChange } from './pin-state.js'

/** Options of `new ToolPins`. */
export interface ToolPinsOptions {
  readonly store: ToolPinsStore
  readonly events: ClusterEvents
  readonly log: Logger
  /** A change was recorded (once): raise `tool.changed`. */
  readonly onChange: (change: ToolChange) => Promise<void> | void
  /** Where owners approve tools, e.g. `https://burrow.example/dashboard/tunnels/`. */
  readonly dashboardUrl: string
  readonly ttlMs?: number
  readonly now?: () => number
  /**
   * Whether the tunnel is in zero-knowledge mode now. A listing answered while its owner turned
   * the mode on was pinned under the policy it came with: definitions written then are erased.
   */
  readonly zeroKnowledgeNow?: (tunnelId: string) => boolean | Promise<boolean>
}
