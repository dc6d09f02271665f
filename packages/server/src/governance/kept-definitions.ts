/**
 * How much of tools' definitions rug-pull pins keep. The hash detects and holds a change; the
 * definition only serves the owner's diff, so a tunnel keeps at most `MAX_KEPT_DEFINITION_CHARS`
 * of them (a server listing 1,000 tools of 256 KiB each would otherwise hold hundreds of MB per
 * tunnel) and only hashes past that. Each tool seen is decided once, so that its definition is
 * counted once however often it is stored. What is kept is masked by the tunnel's redaction, as
 * call history is (a key in a description, a token as a schema's default); the hash is of the
 * definition as sent, so a change behind a mask is still a change.
 */
import type { PinRow, PinnedDefinition } from '../store/tool-pins-store.js'
import type { Redactor } from './redactor.js'
import { MAX_DEFINITION_CHARS, type PinnedTool } from './tool-definition.js'

/** Most characters of tool definitions kept per tunnel; past it, only hashes. */
export const MAX_KEPT_DEFINITION_CHARS = 4 * 1024 * 1024

/** Characters of definitions `row` keeps: the current one counts when it is not the approved. */
export function keptChars(row: PinRow): number {
  const current = row.currentHash === row.approvedHash ? 0 : (row.currentDefinition?.length ?? 0)
  return (row.approvedDefinition?.length ?? 0) + current
}

/** How a tunnel keeps definitions: none in zero-knowledge mode, else masked by its redactor. */
export interface Keeping {
  readonly zeroKnowledge: boolean
  readonly redactor?: Redactor | null
}

/** What a tunnel's pins keep of definitions, counted as they are added. */
export interface DefinitionCount {
  definitionChars: number
}

/** The decisions on what is stored of each tool seen. */
export class KeptDefinitions {
  readonly #kept = new WeakMap<PinnedTool, PinnedDefinition>()

  /** What is stored of `p`: its definition while the tunnel has room, else its hashes only. */
  of(count: DefinitionCount, p: PinnedTool, keep: Keeping): PinnedDefinition {
    let kept = this.#kept.get(p)
    if (kept === undefined) {
      const room = count.definitionChars + p.definition.length <= MAX_KEPT_DEFINITION_CHARS
      const definition = keep.zeroKnowledge || !room ? null : redacted(p, keep.redactor ?? null)
      if (definition !== null) count.definitionChars += definition.length
      kept = { hash: p.hash, bodyHash: p.bodyHash, definition }
      this.#kept.set(p, kept)
    }
    return kept
  }

  /** `p` without its text, to hold until its list is complete: `of` gives what was decided. */
  slim(count: DefinitionCount, p: PinnedTool, keep: Keeping): PinnedTool {
    const slim: PinnedTool = { ...p, definition: '', whole: undefined }
    this.#kept.set(slim, this.of(count, p, keep))
    return slim
  }
}

/**
 * The definition of `p` as `redactor` masks it, named by its key: a name holding a secret is
 * kept as its key (pin-key.ts) even where the tunnel's redaction is off, as the pin's row keeps
 * it (found by a review: the definition kept the name as listed). A definition cut at its limit
 * is masked from its fields, then cut: the cut text was masked as text, where keys were never
 * applied and a secret after an escape (`\\n`) was not found (found by a hostile review).
 */
function redacted(p: PinnedTool, redactor: Redactor | null): string {
  const active = redactor !== null && redactor.active
  const renamed = p.name !== p.listed
  if (!active && !renamed) return p.definition
  let value: unknown
  try {
    value = JSON.parse(p.whole ?? p.definition)
  } catch {
    return JSON.stringify('[REDACTED:unscanned]')
  }
  // In place of the name as listed, where it keeps its (sorted) place in the canonical text.
  if (renamed && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    value = { ...(value as Record<string, unknown>), name: p.name }
  }
  if (!active) return JSON.stringify(value).slice(0, MAX_DEFINITION_CHARS)
  if (!p.cut) return JSON.stringify(redactor.redactDefinition(value))
  // Walked in the canonical order (as parsed), so the room runs out where the cut falls.
  const room = { chars: MAX_DEFINITION_CHARS, cut: false }
  return JSON.stringify(redactor.redactDefinition(value, room)).slice(0, MAX_DEFINITION_CHARS)
}
