/**
 * A tunnel's tools as its owner reviews them (the Tools tab and `GET /api/tunnels/:id/tools`):
 * each pinned tool's status with its approved and current definitions and their field-by-field
 * diff, whether a baseline was taken, when the server last said its tools changed, and the
 * approval history. Zero-knowledge tunnels keep no definitions, so they show no diff.
 */
import type { PinRow, PinStatus, ToolPinsStore } from '../store/tool-pins-store.js'
import { diffDefinitions, type FieldChange } from './definition-diff.js'

/** One tool under review. */
export interface ToolView extends PinRow {
  /** The approved and current definitions' differences; null when either is not kept. */
  readonly diff: readonly FieldChange[] | null
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
  const tools = loaded.pins
    .map((p) => ({
      ...p,
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
