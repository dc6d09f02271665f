/**
 * A tunnel's tools as its owner reviews them (the Tools tab and `GET /api/tunnels/:id/tools`):
 * each pinned tool's status with its approved and current definitions and their field-by-field
 * diff and which other tool its name looks like (pin-lookalikes.ts), whether a baseline was
 * taken, when the server last said its tools changed, and the approval history.
 * Zero-knowledge tunnels keep no definitions, so they show no diff.
 */
import type { PinRow, PinStatus, ToolPinsStore } from '../store/tool-pins-store.js'
import { diffDefinitions, type FieldChange } from './definition-diff.js'
import { LOOKALIKE_FLAGGED, lookalikeIndex } from './pin-lookalikes.js'

/** One tool under review. */
export interface ToolView extends PinRow {
  /** The approved and current definitions' differences; null when either is not kept. */
  readonly diff: readonly FieldChange[] | null
  /**
   * Another tool of the tunnel whose name this one's looks like (the same UTS #39 skeleton: a
   * Cyrillic `ѕеаrсһ` and `search`), for a new, changed, renamed or rejected tool; else null.
   */
  readonly looksLike: string | null
}

/** One approval or rejection. */
export interface ToolDecisionView {
  readonly name: string
  readonly decision: string
  readonly hash: string | null
  readonly decidedAt: string
  readonly decidedBy: string
}

/** The tunnel's tools. */
export interface ToolsView {
  readonly baselined: boolean
  readonly listChangedAt: string | null
  readonly tools: readonly ToolView[]
  readonly decisions: readonly ToolDecisionView[]
}

/** Statuses that wait for the owner: the tool changed, appeared, was renamed or vanished. */
export const AWAITING: readonly PinStatus[] = ['changed', 'new', 'renamed', 'removed']

/** The tools of `tunnelId`, those awaiting the owner first. */
export async function toolsView(store: ToolPinsStore, tunnelId: string): Promise<ToolsView> {
  const loaded = await store.load(tunnelId)
  const decisions = await store.decisions(tunnelId)
  // Skeletons are computed only when some tool is flagged.
  const index = loaded.pins.some((p) => LOOKALIKE_FLAGGED.has(p.status))
    ? lookalikeIndex(loaded.pins)
    : null
  const tools = loaded.pins
    .map((p) => ({
      ...p,
      looksLike: index !== null && LOOKALIKE_FLAGGED.has(p.status) ? index.looksLike(p.name) : null,
      diff:
        p.approvedDefinition !== null && p.currentDefinition !== null
          ? diffDefinitions(p.approvedDefinition, p.currentDefinition)
          : null,
    }))
    .sort(
      (a, b) =>
        Number(AWAITING.includes(b.status)) - Number(AWAITING.includes(a.status)) ||
        a.name.localeCompare(b.name),
    )
  return {
    baselined: loaded.baselined,
    listChangedAt: loaded.listChangedAt,
    tools,
    decisions: decisions.map((d) => ({
      name: d.name,
      decision: d.decision,
      hash: d.hash ?? null,
      decidedAt: d.decided_at,
      decidedBy: d.decided_by,
    })),
  }
}
