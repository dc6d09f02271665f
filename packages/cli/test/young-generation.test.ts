// The young-generation setting of `burrow`: who decides, and that it holds V8's new space small.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, it } from 'node:test'
import { wantsSmallYoungGeneration } from '../src/young-generation.js'

const run = promisify(execFile)
const MODULE = fileURLToPath(new URL('../src/young-generation.ts', import.meta.url))

/**
 * New-space size (MiB) when the setting is applied (or not) in a fresh Node, and after keeping
 * many objects alive.
 */
async function newSpaceMiB(keepSmall: boolean): Promise<{ before: number; after: number }> {
  const script = `
    import { keepYoungGenerationSmall } from ${JSON.stringify(MODULE)}
    import { getHeapSpaceStatistics } from 'node:v8'
    const size = () =>
      getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576
    if (${keepSmall}) keepYoungGenerationSmall()
    const before = size()
    const kept = []
    for (let i = 0; i < 300000; i++) {
      kept.push({ i, s: 'x' + i, a: [i] })
      if (kept.length > 60000) kept.splice(0, 10000)
    }
    console.log(JSON.stringify({ before, after: size() }))
  `
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    script,
  ])
  return JSON.parse(stdout) as { before: number; after: number }
}

describe('young generation of burrow up', () => {
  it('is kept small unless Node was given a size', () => {
    assert.equal(wantsSmallYoungGeneration([], undefined), true)
    assert.equal(wantsSmallYoungGeneration(['--max-semi-space-size=16'], undefined), false)
    assert.equal(wantsSmallYoungGeneration([], '--max_semi_space_size=8 --trace-gc'), false)
    assert.equal(wantsSmallYoungGeneration([], '--semi-space-growth-factor=4'), false)
    assert.equal(wantsSmallYoungGeneration(['--inspect'], '--max-old-space-size=512'), true)
  })

  it('stops the new space of V8 from growing where it otherwise grows', async () => {
    const [grown, kept] = await Promise.all([newSpaceMiB(false), newSpaceMiB(true)])
    assert.ok(kept.after <= kept.before, `new space ${kept.before} → ${kept.after} MiB with it`)
    assert.ok(grown.after > grown.before, `new space ${grown.before} → ${grown.after} MiB without`)
  })
})
