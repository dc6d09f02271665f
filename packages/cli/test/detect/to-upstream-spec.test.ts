// A detected server as `up` serves it: argv and env exactly as configured, a readable command.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { DetectedServer } from '../../src/detect/detected-server.js'
import { formatCommandLine } from '../../src/detect/format-command-line.js'
import { toUpstreamSpec } from '../../src/detect/to-upstream-spec.js'
import { parseCommand } from '../../src/stdio/parse-command.js'

const base = {
  name: 'My Server!',
  sanitizedName: 'my-server-',
  client: 'claude-desktop',
  clients: ['claude-desktop'],
  source: '/c.json',
  sources: ['/c.json'],
  notes: [],
} as const

describe('toUpstreamSpec', () => {
  it('stdio: argv split as configured, env kept, command for display', () => {
    const entry: DetectedServer = {
      ...base,
      transport: {
        type: 'stdio',
        command: 'C:\\Program Files\\nodejs\\node.exe',
        args: ['server.js', "it's here", ''],
        env: { TOKEN: 'x' },
      },
    }
    const spec = toUpstreamSpec(entry)
    assert.deepEqual(spec, {
      kind: 'stdio',
      name: 'my-server-',
      command: `'C:\\Program Files\\nodejs\\node.exe' server.js 'it'\\''s here' ''`,
      argv: ['C:\\Program Files\\nodejs\\node.exe', 'server.js', "it's here", ''],
      env: { TOKEN: 'x' },
    })
  })
  it('http: the URL', () => {
    const entry: DetectedServer = {
      ...base,
      transport: { type: 'http', url: 'http://127.0.0.1:3000/mcp' },
    }
    assert.deepEqual(toUpstreamSpec(entry), {
      kind: 'http',
      name: 'my-server-',
      url: 'http://127.0.0.1:3000/mcp',
    })
  })
})

describe('formatCommandLine', () => {
  it('reads back to the same words with burrow’s own --stdio parser', () => {
    const argv = ['npx', '-y', '@scope/pkg@1.2', 'a b', "it's", '$HOME', 'x;y', '']
    const line = formatCommandLine(argv)
    assert.equal(line, `npx -y @scope/pkg@1.2 'a b' 'it'\\''s' '$HOME' 'x;y' ''`)
    assert.deepEqual(parseCommand(line, { HOME: '/h' }, { platform: 'linux' }), {
      command: 'npx',
      args: argv.slice(1),
    })
  })
})
