// What `up` exposes when it detects servers itself: one, a choice on a terminal, or all; a
// server only the working directory's project files declare only with the user's yes.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { UsageError } from '../../src/cli-errors.js'
import { chooseUpstreams, pickNumbers, type ChooseIo } from '../../src/detect/choose-upstreams.js'
import type { DetectedServer } from '../../src/detect/detected-server.js'

const server = (name: string): DetectedServer => ({
  name,
  sanitizedName: name,
  client: 'cursor',
  clients: ['cursor', 'codex'],
  source: '/c.json',
  sources: ['/c.json'],
  transport: { type: 'stdio', command: 'node', args: [`${name}.js`], env: {} },
  notes: [],
})
const three = [server('alpha'), server('beta'), server('gamma')]
const repo: DetectedServer = {
  ...server('repo'),
  source: '/work/clone/.mcp.json',
  sources: ['/work/clone/.mcp.json'],
  transport: {
    type: 'stdio',
    command: 'node',
    args: ['repo.js'],
    env: { NODE_OPTIONS: '--require ./.x/p.js' },
  },
}
const fromProject = (e: DetectedServer): boolean => e.sanitizedName === 'repo'

/** A terminal that answers from a script and records everything shown. */
function scripted(answers: string[], isTTY = true) {
  const questions: string[] = []
  const output: string[] = []
  const warnings: string[] = []
  const io: ChooseIo = {
    isTTY,
    ask: async (question) => {
      questions.push(question)
      const answer = answers.shift()
      if (answer === undefined) throw new Error(`unexpected question: ${question}`)
      return answer
    },
    warn: (msg) => void warnings.push(msg),
    out: (text) => void output.push(text),
  }
  return { io, questions, output, warnings, answers }
}

describe('chooseUpstreams', () => {
  it('none: a usage error that says how to name an upstream', async () => {
    const { io } = scripted([])
    await assert.rejects(
      chooseUpstreams([], io),
      (e: unknown) =>
        e instanceof UsageError &&
        /no MCP servers found/.test(e.message) &&
        /--upstream/.test(e.message) &&
        /--stdio/.test(e.message),
    )
  })
  it('one: exposed directly, without a question', async () => {
    const t = scripted([])
    assert.deepEqual(await chooseUpstreams([server('solo')], t.io), [server('solo')])
    assert.deepEqual(t.questions, [])
  })
  it('several on a terminal: one server, picked by number', async () => {
    const t = scripted(['1', '2'])
    const chosen = await chooseUpstreams(three, t.io)
    assert.deepEqual(
      chosen.map((s) => s.sanitizedName),
      ['beta'],
    )
    const menu = t.output.join('')
    assert.match(menu, /1\) alpha \(Cursor, Codex\) stdio: node alpha\.js/)
    assert.match(menu, /3\) gamma/)
    assert.equal(t.questions.length, 2)
  })
  it('several on a terminal: aggregate a list, or all', async () => {
    const list = scripted(['2', '3, 1'])
    assert.deepEqual(
      (await chooseUpstreams(three, list.io)).map((s) => s.sanitizedName),
      ['gamma', 'alpha'],
    )
    const all = scripted(['aggregate', 'ALL'])
    assert.deepEqual(await chooseUpstreams(three, all.io), three)
  })
  it('re-asks after invalid answers, saying what was wrong', async () => {
    const t = scripted(['3', '', 'one', '0', '1,2', 'two', '3'])
    const chosen = await chooseUpstreams(three, t.io)
    assert.deepEqual(
      chosen.map((s) => s.sanitizedName),
      ['gamma'],
    )
    assert.equal(t.questions.length, 7)
    assert.equal(t.output.filter((o) => /is not one of the choices/.test(o)).length, 5)
  })
  it('gives up with a usage error when no valid answer comes', async () => {
    const t = scripted(Array.from({ length: 10 }, () => 'x'))
    await assert.rejects(chooseUpstreams(three, t.io), UsageError)
  })
  it('several without a terminal: all aggregated, with a warning naming them', async () => {
    const t = scripted([], false)
    assert.deepEqual(await chooseUpstreams(three, t.io), three)
    assert.equal(t.warnings.length, 1)
    assert.match(t.warnings[0]!, /3 MCP servers.*no terminal.*aggregating all.*alpha, beta, gamma/)
    assert.deepEqual(t.questions, [])
  })
})

describe("chooseUpstreams and a project's files", () => {
  it('one from the project, on a terminal: shown with its command, run only after a yes', async () => {
    const yes = scripted(['y'])
    assert.deepEqual(await chooseUpstreams([repo], yes.io, fromProject), [repo])
    assert.match(yes.output.join(''), /project file \/work\/clone\/\.mcp\.json/)
    assert.match(
      yes.output.join(''),
      /repo stdio: node repo\.js with NODE_OPTIONS=--require \.\/\.x\/p\.js\n/,
      'the environment a repository sets is shown: it can run code of its own',
    )
    assert.match(yes.output.join(''), /runs in this directory/)
    assert.deepEqual(yes.questions, ['Run and expose it? [y/N] '])
    for (const answer of ['', 'n', 'No']) {
      const no = scripted([answer])
      await assert.rejects(
        chooseUpstreams([repo], no.io, fromProject),
        (e: unknown) => e instanceof UsageError && /not approved/.test(e.message),
      )
    }
    const unclear = scripted(['maybe', 'yes'])
    assert.deepEqual(await chooseUpstreams([repo], unclear.io, fromProject), [repo])
  })
  it('one from the project, without a terminal: a usage error naming the file and --config', async () => {
    const t = scripted([], false)
    await assert.rejects(
      chooseUpstreams([repo], t.io, fromProject),
      (e: unknown) =>
        e instanceof UsageError &&
        /only this directory's project file \/work\/clone\/\.mcp\.json declares:/.test(e.message) &&
        /--config/.test(e.message),
    )
  })
  it('without a terminal, names each project file once and the first ten servers, however many it declares', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({
      ...repo,
      name: `r${i}`,
      sanitizedName: `r${i}`,
    }))
    await assert.rejects(
      chooseUpstreams(many, scripted([], false).io, () => true),
      (e: unknown) =>
        e instanceof UsageError &&
        /just the 12 servers \(r0, r1, r2, r3, r4, r5, r6, r7, r8, r9 and 2 more\) that only this directory's project file \/work\/clone\/\.mcp\.json declares: /.test(
          e.message,
        ),
    )
  })
  it('several from one project file, without a terminal: the file named once, the servers by name', async () => {
    const t = scripted([], false)
    const other = { ...repo, name: 'repo2', sanitizedName: 'repo2' }
    await assert.rejects(
      chooseUpstreams([repo, other], t.io, () => true),
      (e: unknown) => {
        assert.ok(e instanceof UsageError)
        assert.equal(e.message.split('/work/clone/.mcp.json').length, 2, e.message)
        assert.match(
          e.message,
          /^found no MCP server of your own, just the 2 servers \(repo, repo2\) that only this directory's project file \/work\/clone\/\.mcp\.json declares:/,
        )
        return true
      },
    )
  })
  it("without a terminal, the user's servers only, with a warning about the project's", async () => {
    const t = scripted([], false)
    assert.deepEqual(await chooseUpstreams([server('alpha'), repo], t.io, fromProject), [
      server('alpha'),
    ])
    assert.equal(t.warnings.length, 1)
    assert.match(
      t.warnings[0]!,
      /^not exposing the server \(repo\) that only this directory's project file \S+ declares:/,
    )
    const two = scripted([], false)
    const chosen = await chooseUpstreams([...three, repo], two.io, fromProject)
    assert.deepEqual(chosen, three)
    assert.equal(two.warnings.length, 2)
  })
  it("marks the project's servers in the menu", async () => {
    const t = scripted(['1', '2'])
    assert.deepEqual(await chooseUpstreams([server('alpha'), repo], t.io, fromProject), [repo])
    assert.match(
      t.output.join(''),
      /2\) repo .* with NODE_OPTIONS=--require \.\/\.x\/p\.js {2}\[this project's \/work\/clone\/\.mcp\.json\]/,
    )
    assert.doesNotMatch(t.output.join(''), /1\) alpha .*this project/)
  })
})

describe('pickNumbers', () => {
  it('numbers, lists and ranges within 1..max, without repeats', () => {
    assert.deepEqual(pickNumbers('2', 3), [2])
    assert.deepEqual(pickNumbers('3,1', 3), [3, 1])
    assert.deepEqual(pickNumbers('1-3, 2', 3), [1, 2, 3])
    assert.equal(pickNumbers('4', 3), null)
    assert.equal(pickNumbers('0', 3), null)
    assert.equal(pickNumbers('3-1', 3), null)
    assert.equal(pickNumbers('1,', 3), null)
    assert.equal(pickNumbers('', 3), null)
    assert.equal(pickNumbers('a', 3), null)
  })
  it('takes a range of 200,000 without a search of the picks per number', () => {
    const picked = pickNumbers('5, 1-200000', 200_000)!
    assert.equal(picked.length, 200_000)
    assert.deepEqual(picked.slice(0, 3), [5, 1, 2])
  })
})
