/**
 * The body of `POST /api/crash-reports`: what a `burrow` client may send and how long each field
 * may be. Untrusted input is checked here and nowhere else; unknown fields are ignored (newer
 * clients may send more) and never stored.
 */
import type { CrashKind, CrashReportInput } from '../store/crash-report-store.js'

/** Largest accepted request body, in bytes. */
export const CRASH_REPORT_MAX_BYTES = 64 * 1024

/** Longest accepted value of each field, in characters. */
export const CRASH_REPORT_FIELD_LIMITS = {
  client_version: 64,
  os: 32,
  arch: 32,
  node: 32,
  message: 4096,
  stack: 32_768,
  command: 64,
} as const

/** Printable ASCII, for the short identifying fields. */
const PRINTABLE = /^[\x20-\x7e]+$/

/**
 * Check a parsed JSON body `{client_version, os, arch, node, kind, message, stack, command?}`.
 * Returns the report, or a sentence saying which field is wrong and what is accepted.
 */
export function parseCrashReportBody(value: unknown): CrashReportInput | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'the body must be a JSON object {client_version, os, arch, node, kind, message, stack, command?}'
  }
  const body = value as Record<string, unknown>
  const problems: string[] = []
  const short = (field: 'client_version' | 'os' | 'arch' | 'node'): string => {
    const v = body[field]
    const max = CRASH_REPORT_FIELD_LIMITS[field]
    if (typeof v !== 'string' || v.length === 0 || v.length > max || !PRINTABLE.test(v)) {
      problems.push(`"${field}" must be 1-${max} printable ASCII characters`)
      return ''
    }
    return v
  }
  const text = (field: 'message' | 'stack'): string => {
    const v = body[field]
    const max = CRASH_REPORT_FIELD_LIMITS[field]
    if (typeof v !== 'string' || v.length > max) {
      problems.push(`"${field}" must be a string of at most ${max} characters`)
      return ''
    }
    return v
  }
  const clientVersion = short('client_version')
  const os = short('os')
  const arch = short('arch')
  const node = short('node')
  const kind = body.kind
  if (kind !== 'uncaught' && kind !== 'fatal') problems.push('"kind" must be "uncaught" or "fatal"')
  const message = text('message')
  const stack = text('stack')
  const command = body.command ?? null
  const commandMax = CRASH_REPORT_FIELD_LIMITS.command
  if (
    command !== null &&
    (typeof command !== 'string' ||
      command.length === 0 ||
      command.length > commandMax ||
      !PRINTABLE.test(command))
  ) {
    problems.push(`"command" must be absent, null or 1-${commandMax} printable ASCII characters`)
  }
  if (problems.length > 0) return `invalid crash report: ${problems.join('; ')}`
  return {
    clientVersion,
    os,
    arch,
    node,
    kind: kind as CrashKind,
    message,
    stack,
    command: command as string | null,
  }
}
