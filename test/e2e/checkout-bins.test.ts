// `npx burrow` and `npx burrowd` inside the checkout run the project's own executables (the
// registry has an unrelated package named `burrow`; `--offline` makes sure none is fetched here).
// npm links a workspace's bin at install time only if its file exists then, before any build, so
// the bins are committed launchers; one that finds no build says what to run.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { ROOT } from '../helpers/stack.js'

const run = promisify(execFile)
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'

function versionOf(workspace: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8')) as {
    version: string
  }
  return pkg.version
}

async function npmExec(cwd: string, bin: string, ...args: string[]) {
  return run(NPM, ['exec', '--offline', '--', bin, ...args], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    timeout: 60_000,
  })
}

describe('the checkout exposes burrow and burrowd to npx', () => {
  it('npx burrow --version runs the workspace client, from the root and from a subdirectory', async () => {
    const expected = `burrow ${versionOf('packages/cli')}\n`
    assert.equal((await npmExec(ROOT, 'burrow', '--version')).stdout, expected)
    assert.equal((await npmExec(join(ROOT, 'examples'), 'burrow', '--version')).stdout, expected)
  })

  it('npx burrowd --version runs the workspace service', async () => {
    const { stdout } = await npmExec(ROOT, 'burrowd', '--version')
    assert.equal(stdout, `burrowd ${versionOf('packages/server')}\n`)
  })

  it('every workspace bin is a file in git, so a fresh `npm install` links it', async () => {
    for (const workspace of ['packages/cli', 'packages/server']) {
      const pkg = JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8')) as {
        bin: Record<string, string>
      }
      for (const target of Object.values(pkg.bin)) {
        const { stdout } = await run('git', ['ls-files', '--error-unmatch', target], {
          cwd: join(ROOT, workspace),
        })
        assert.equal(stdout.trim(), target.replace(/^\.\//, ''))
      }
    }
  })

  describe('a launcher with nothing built', () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-unbuilt-'))
    after(() => rmSync(dir, { recursive: true, force: true }))

    for (const [workspace, bin] of [
      ['packages/cli', 'burrow'],
      ['packages/server', 'burrowd'],
    ] as const) {
      it(`${bin} says to build, and exits 1`, async () => {
        mkdirSync(join(dir, bin, 'bin'), { recursive: true })
        const launcher = join(dir, bin, 'bin', `${bin}.js`)
        copyFileSync(join(ROOT, workspace, 'bin', `${bin}.js`), launcher)
        copyFileSync(join(ROOT, workspace, 'package.json'), join(dir, bin, 'package.json'))
        const failed = await run(process.execPath, [launcher, '--version']).then(
          () => assert.fail('expected a non-zero exit'),
          (err: { code: number; stderr: string }) => err,
        )
        assert.equal(failed.code, 1)
        assert.equal(
          failed.stderr,
          `${bin}: this checkout is not built yet; run "npm run build" at the root of the repository\n`,
        )
      })
    }
  })
})
