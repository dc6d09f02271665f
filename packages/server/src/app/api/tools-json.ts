/**
 * The JSON shapes of the rug-pull API (docs/api.md#tools): a tunnel's pinned tools, each with
 * its status, which other tool its name looks like, both hashes and (unless the tunnel is zero-knowledge) both definitions and their
 * field-by-field diff.
 */
import type { ToolsView, ToolView } from '../../governance/tools-view.js'

/** `GET /api/tunnels/:id/tools`. */
export function toolsJson(
  tunnelId: string,
  view: ToolsView,
  policy: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const rug = policy.rug_pull as { mode?: unknown } | undefined
  const zeroKnowledge = policy.zero_knowledge === true
  return {
    tunnel_id: tunnelId,
    mode: rug?.mode ?? 'alert',
    zero_knowledge: zeroKnowledge,
    baselined: view.baselined,
    list_changed_at: view.listChangedAt,
    tools: view.tools.map((t) => toolJson(t, !zeroKnowledge)),
    decisions: view.decisions.map((d) => ({
      tool: d.name,
      decision: d.decision,
      hash: d.hash,
      decided_at: d.decidedAt,
      decided_by: d.decidedBy,
    })),
  }
}

/** One tool; `definitions`: include the kept definitions and their diff. */
export function toolJson(t: ToolView, definitions: boolean): Record<string, unknown> {
  return {
    name: t.name,
    status: t.status,
    approved_hash: t.approvedHash,
    current_hash: t.currentHash,
    changed_at: t.changedAt,
    renamed_from: t.renamedFrom,
    looks_like: t.looksLike,
    approved_at: t.approvedAt,
    approved_by: t.approvedBy,
    ...(definitions
      ? {
          approved_definition: parsed(t.approvedDefinition),
          current_definition: parsed(t.currentDefinition),
          diff: t.diff?.map((c) => ({ path: c.path, before: c.before, after: c.after })) ?? null,
        }
      : { approved_definition: null, current_definition: null, diff: null }),
  }
}

function parsed(text: string | null): unknown {
  if (text === null) return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    // A definition cut at its size cap is kept as text.
    return text
  }
}
