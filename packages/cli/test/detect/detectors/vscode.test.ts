// VS Code's `${input:…}` placeholders, explained from the file's `inputs`.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { vscodeDetector } from '../../../src/detect/detectors/vscode.js'
import { detectContextFrom } from '../../../src/detect/detect-context.js'

const env = {
  ctx: detectContextFrom({ platform: 'linux', env: {}, cwd: '/work', homedir: '/home/me' }),
  warn: () => {},
}

describe('vscodeDetector.parse', () => {
  it('explains each input a server uses with the first declaration of its id', () => {
    const [server] = vscodeDetector.parse(
      {
        inputs: [
          { id: 'key', description: 'API key', password: true },
          { id: 'key', description: 'a later one' },
        ],
        servers: { s: { command: 'run', env: { KEY: '${input:key}', X: '${input:gone}' } } },
      },
      'mcp.json',
      env,
    )
    assert.deepEqual(server!.notes, [
      '${input:key} is a value VS Code asks for when it starts the server ("API key"), a secret; set it yourself for burrow',
      '${input:gone} refers to an input the file does not declare',
    ])
  })
  it('takes 100,000 inputs used by one server without a search per input', () => {
    // A search of the declarations for every id was 10^10 comparisons on such a file.
    const n = 100_000
    const inputs = Array.from({ length: n }, (_, i) => ({ id: `i${i}`, description: `d${i}` }))
    const args = Array.from({ length: n }, (_, i) => `\${input:i${n - 1 - i}}`)
    const [server] = vscodeDetector.parse(
      { inputs, servers: { s: { command: 'run', args: [...args, '${input:'.repeat(400_000)] } } },
      'mcp.json',
      env,
    )
    assert.equal(server!.notes.length, n)
    assert.match(server!.notes[0]!, /^\$\{input:i99999\} .*\("d99999"\)/)
  })
})
