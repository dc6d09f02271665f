// Other Node releases for tests that run Burrow's built executables on them: the releases the
// project supports besides the machine's own (package.json's engines: 20.19 and later; the deploy
// image runs 22). Each is fetched from the package registry with `npx`, as the conformance
// script fetches the Node 22 its suite needs, and cached by npm after the first run.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The path of the `node` executable of release line `major` (22, 24, …). */
export async function nodeRelease(major: number): Promise<string> {
  const { stdout } = await run(
    'npx',
    ['-y', '-p', `node@${major}`, '--', 'node', '-p', 'process.execPath + " " + process.version'],
    { timeout: 300_000, maxBuffer: 1024 * 1024 },
  )
  const [path, version] = stdout.trim().split('\n').at(-1)!.split(' ')
  if (!path || !version?.startsWith(`v${major}.`)) {
    throw new Error(`npx gave no Node ${major}: ${stdout.trim()}`)
  }
  return path
}
