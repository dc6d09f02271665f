/**
 * What `POST /api/crash-reports` accepts: the fields of a report with their limits; anything else
 * is refused with a sentence naming the field.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CRASH_REPORT_FIELD_LIMITS, parseCrashReportBody } from '../../src/app/crash-report-body.js'

const VALID = {
  client_version: '0.1.0',
  os: 'linux',
  arch: 'x64',
  node: 'v20.19.0',
  kind: 'uncaught',
  message: 'Error: boom',
  stack: 'Error: boom\n    at x (file.js:1:1)',
  command: 'up',
}

/** The refusal for `value`; fails when it is accepted. */
function problemOf(value: unknown): string {
  const result = parseCrashReportBody(value)
  if (typeof result !== 'string') assert.fail(`accepted ${JSON.stringify(value).slice(0, 80)}`)
  return result
}

describe('parseCrashReportBody', () => {
  it('accepts a complete report and maps it to the store input', () => {
    assert.deepEqual(parseCrashReportBody(VALID), {
      clientVersion: '0.1.0',
      os: 'linux',
      arch: 'x64',
      node: 'v20.19.0',
      kind: 'uncaught',
      message: 'Error: boom',
      stack: 'Error: boom\n    at x (file.js:1:1)',
      command: 'up',
    })
  })

  it('treats command as optional and ignores unknown fields', () => {
    const { command: _command, ...rest } = VALID
    const report = parseCrashReportBody({ ...rest, env: { SECRET: 'x' } })
    assert.ok(typeof report === 'object')
    assert.equal(report.command, null)
    assert.ok(!('env' in report))
    assert.equal(
      (parseCrashReportBody({ ...VALID, command: null }) as { command: unknown }).command,
      null,
    )
  })

  it('refuses what is not an object', () => {
    for (const value of [null, [], 'x', 3]) {
      assert.match(problemOf(value), /must be a JSON object/)
    }
  })

  it('names every bad field', () => {
    const problem = problemOf({ ...VALID, kind: 'panic', os: '', stack: 3 })
    assert.match(problem, /"kind" must be "uncaught" or "fatal"/)
    assert.match(problem, /"os" must be/)
    assert.match(problem, /"stack" must be a string/)
  })

  it('enforces the length of each field', () => {
    for (const [field, max] of Object.entries(CRASH_REPORT_FIELD_LIMITS)) {
      assert.equal(
        typeof parseCrashReportBody({ ...VALID, [field]: 'a'.repeat(max) }),
        'object',
        `${field} of ${max} characters is accepted`,
      )
      assert.match(
        problemOf({ ...VALID, [field]: 'a'.repeat(max + 1) }),
        new RegExp(`"${field}"`),
        `${field} of ${max + 1} characters is refused`,
      )
    }
  })

  it('refuses control characters in the short identifying fields', () => {
    assert.match(problemOf({ ...VALID, client_version: '0.1.0\u001b[2J' }), /"client_version"/)
  })
})
