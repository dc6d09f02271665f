/**
 * A tool's definition as rug-pull protection pins it: the fields that tell an agent what the
 * tool does and takes (name, title, description, input and output schemas, annotations) and
 * those that change what its host does with it (`icons`, `execution`, and the `_meta` keys of
 * MCP Apps and of ChatGPT's Apps SDK that name the UI a host renders), in canonical JSON (keys
 * sorted at every level), and its SHA-256. Other `_meta` keys (trace ids, timestamps) are left
 * out: a server may vary them per listing. `bodyHash` leaves the name out, so a tool renamed
 * without other change is recognised. `legacyHash` is the hash of the fields pinned before the
 * host-facing ones were (form 1), which recognises a pin stored then (pin-forms.ts). Bounded: a
 * definition deeper than 32 levels or larger than 256 KiB is hashed as its raw text and stored cut.
 * Members a reader matching names without case reads as a pinned field are pinned too
 * (case-variant-fields.ts).
 */
import { createHash } from 'node:crypto'
import { caseVariantsOf } from './case-variant-fields.js'
import { pinKeyOf } from './pin-key.js'

/** The pinned fields. */
export const PINNED_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'icons',
  'execution',
] as const

/** The fields pinned before `icons`, `execution` and `_meta` keys were (pins of form 1). */
export const LEGACY_PINNED_FIELDS = PINNED_FIELDS.filter((f) => f !== 'icons' && f !== 'execution')

/**
 * The `_meta` keys pinned: MCP Apps' `ui` object (`resourceUri`, the UI a host renders; `csp`,
 * `permissions`, `visibility`, `domain`), its earlier flat `ui/resourceUri` key, and ChatGPT's
 * Apps SDK keys that name the rendered template, let it call tools, or hide the tool.
 */
export const PINNED_META_KEYS = [
  'ui',
  'ui/resourceUri',
  'openai/outputTemplate',
  'openai/widgetAccessible',
  'openai/visibility',
] as const

/** The names a case-folding reader may read as a pinned field (`_meta` holds pinned keys). */
const CASE_FOLDED_FIELDS: readonly string[] = [...PINNED_FIELDS, '_meta']
/**
 * Where the pin keeps the order of members that fold alike (case-variant-fields.ts). It folds to
 * no pinned field, so no member a server lists is pinned under it.
 */
const CASE_ORDER = '$caseOrder'

/** The form of pins written now: what `hash` covers. Form 1 was `LEGACY_PINNED_FIELDS` only. */
export const PIN_FORM = 2
/** The form of pins stored before the host-facing fields were pinned (no form stored). */
export const LEGACY_PIN_FORM = 1

/** Deepest nesting walked. */
const MAX_DEPTH = 32
/** Largest definition stored whole (canonical JSON characters). */
export const MAX_DEFINITION_CHARS = 256 * 1024

/** A tool as pinned. */
export interface PinnedTool {
  /** The key it is pinned under: its name, masked where it holds a secret (pin-key.ts). */
  readonly name: string
  /** Its name as the server listed it. */
  readonly listed: string
  /** SHA-256 (hex) of the canonical definition. */
  readonly hash: string
  /** SHA-256 of the canonical definition without its name. */
  readonly bodyHash: string
  /** `hash` and `bodyHash` of the form-1 field set (equal to them when the tool has none of the rest). */
  readonly legacyHash: string
  readonly legacyBodyHash: string
  /** The canonical definition, cut at `MAX_DEFINITION_CHARS` (then `cut` is true). */
  readonly definition: string
  readonly cut: boolean
  /**
   * When `cut`, the canonical definition whole, so that what is kept of it is masked before it
   * is cut (kept-definitions.ts): the cut text is no JSON to redact field by field.
   */
  readonly whole?: string
}

/**
 * The pinned form of `tool` (an item of a `tools/list` result), or null when it has no name;
 * `key` is its name's `pinKeyOf` when the caller has it already.
 */
export function pinTool(tool: unknown, key?: string): PinnedTool | null {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) return null
  const t = tool as Record<string, unknown>
  if (typeof t.name !== 'string' || t.name === '') return null
  const legacy: Record<string, unknown> = {}
  for (const field of LEGACY_PINNED_FIELDS) if (t[field] !== undefined) legacy[field] = t[field]
  // What a reader matching names without case reads otherwise: pinned in every form, so that a
  // pin stored before it was pinned does not match a definition carrying it.
  const variants = caseVariantsOf(t, CASE_FOLDED_FIELDS)
  if (variants !== null) {
    Object.assign(legacy, variants.members)
    if (variants.order.length > 0) legacy[CASE_ORDER] = variants.order
  }
  const picked: Record<string, unknown> = { ...legacy }
  if (t.icons !== undefined) picked.icons = t.icons
  if (t.execution !== undefined) picked.execution = t.execution
  const meta = pinnedMeta(t._meta)
  if (meta !== null) picked._meta = meta
  const full = canonicalJson(picked)
  const cut = full.length > MAX_DEFINITION_CHARS
  const hash = sha256(full)
  const bodyHash = sha256(canonicalJson(withoutName(picked)))
  const same = Object.keys(picked).length === Object.keys(legacy).length
  return {
    name: key ?? pinKeyOf(t.name),
    listed: t.name,
    hash,
    bodyHash,
    legacyHash: same ? hash : sha256(canonicalJson(legacy)),
    legacyBodyHash: same ? bodyHash : sha256(canonicalJson(withoutName(legacy))),
    definition: cut ? full.slice(0, MAX_DEFINITION_CHARS) : full,
    cut,
    ...(cut ? { whole: full } : {}),
  }
}

/** The pinned keys of a tool's `_meta`, or null when it has none (or `_meta` is no object). */
function pinnedMeta(meta: unknown): Record<string, unknown> | null {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return null
  const m = meta as Record<string, unknown>
  const picked: Record<string, unknown> = {}
  let any = false
  for (const key of PINNED_META_KEYS) {
    if (Object.hasOwn(m, key) && m[key] !== undefined) {
      picked[key] = m[key]
      any = true
    }
  }
  return any ? picked : null
}

function withoutName(picked: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, ...body } = picked
  void _name
  return body
}

/**
 * JSON with object keys sorted at every level. Values nested deeper than 32 levels are written as
 * a marker with the hash of their plain JSON, so depth cannot blow the stack yet still changes
 * the hash when they change.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (depth >= MAX_DEPTH) return JSON.stringify({ $deep: deepHash(value) })
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map(
      (k) =>
        `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], depth + 1)}`,
    )
  return `{${entries.join(',')}}`
}

/** JSON punctuation on `deepHash`'s stack, told apart from values by its class. */
class Punctuation {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

/**
 * SHA-256 of a value of any depth, walked with an explicit stack (JSON.stringify would overflow
 * the call stack on a hostile nesting). Keys are sorted here too.
 */
function deepHash(value: unknown): string {
  const hash = createHash('sha256')
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (v instanceof Punctuation) {
      hash.update(v.text)
    } else if (v === null || typeof v !== 'object') {
      hash.update(JSON.stringify(v) ?? 'null')
    } else if (Array.isArray(v)) {
      stack.push(new Punctuation(']'))
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i], new Punctuation(','))
      stack.push(new Punctuation('['))
    } else {
      const keys = Object.keys(v).sort()
      stack.push(new Punctuation('}'))
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(
          (v as Record<string, unknown>)[keys[i]!],
          new Punctuation(`${JSON.stringify(keys[i])}:`),
        )
      }
      stack.push(new Punctuation('{'))
    }
  }
  return hash.digest('hex')
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
