/**
 * `burrowd crash-reports list`: the newest crash reports `burrow` clients sent, for operators
 * triaging a release. JSON with every field, or a short summary per report. Reports are
 * untrusted input, so control characters are escaped before they reach a terminal.
 */

import type { ServerConfig } from '../config.js'
import type { CrashReport } from '../store/crash-report-store.js'
import { openStore } from '../store/open-store.js'
import type { CrashReportsListCommand } from './parse-operator-args.js'

/** Stack lines shown per report in the summary (the JSON has the whole stack). */
const STACK_LINES = 4
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g

/**
 * List the newest `command.limit` reports and return what to print on stdout: one JSON object
 * `{"crash_reports": [{id, received_at, client_version, os, arch, node, kind, message, stack,
 * command}]}` (newest first) with `--json`, else a readable summary.
 */
export async function crashReportsList(
  command: CrashReportsListCommand,
  config: ServerConfig,
): Promise<string> {
  const store = await openStore(config)
  try {
    const reports = await store.crashReports.list(command.limit)
    if (command.json) return JSON.stringify({ crash_reports: reports.map(toJson) }) + '\n'
    if (reports.length === 0) return 'No crash reports.\n'
    return reports.map(summary).join('\n') + '\n'
  } finally {
    await store.close()
  }
}

function toJson(report: CrashReport): Record<string, string | null> {
  return {
    id: report.id,
    received_at: report.receivedAt.toISOString(),
    client_version: report.clientVersion,
    os: report.os,
    arch: report.arch,
    node: report.node,
    kind: report.kind,
    message: report.message,
    stack: report.stack,
    command: report.command,
  }
}

function summary(report: CrashReport): string {
  const head = [
    report.id,
    report.receivedAt.toISOString(),
    `burrow ${report.clientVersion}`,
    `${report.os}/${report.arch}`,
    `node ${report.node}`,
    report.kind,
    ...(report.command === null ? [] : [`command: ${report.command}`]),
  ]
  const stack = report.stack.split('\n')
  // A stack usually starts with the message; show the frames below it.
  const frames = stack[0]?.includes(report.message.split('\n', 1)[0] ?? '') ? stack.slice(1) : stack
  const lines = [
    safe(head.join('  ')),
    `  ${safe(report.message.split('\n', 1)[0] ?? '')}`,
    ...frames.slice(0, STACK_LINES).map((line) => `    ${safe(line.trim())}`),
    ...(frames.length > STACK_LINES ? [`    … ${frames.length - STACK_LINES} more (--json)`] : []),
  ]
  return lines.join('\n') + '\n'
}

/** `text` with control characters (terminal escapes included) shown as `\xNN`. */
function safe(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}
