/**
 * The Config routes with `--inspect-admin`: the tab, the current layout, validation by the
 * upstreams-file rules, and apply and save reaching the layout callbacks.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  startInspector,
  type Inspector,
  type InspectorLayout,
} from '../../src/inspector/inspector-server.js'
import { createReplayer } from '../../src/inspector/replay-exchange.js'
import { TrafficRecorder } from '../../src/inspector/traffic-recorder.js'
import type { UpstreamSpec } from '../../src/upstreams/upstream-spec.js'
import { fakeMcp } from './fake-mcp-handler.js'
import { authed } from './inspector-client.js'

describe('inspector Config routes (admin)', { timeout: 30_000 }, () => {
  let inspector: Inspector
  let specs: UpstreamSpec[] = [{ kind: 'http', name: null, url: 'http://127.0.0.1:3000/mcp' }]
  const applied: (readonly UpstreamSpec[])[] = []
  const saved: (readonly UpstreamSpec[])[] = []

  before(async () => {
    const layout: InspectorLayout = {
      get: () => specs,
      apply: async (next) => {
        applied.push(next)
        specs = [...next]
      },
      save: async (next) => {
        saved.push(next)
        return '/tmp/saved.toml'
      },
      file: null,
    }
    const recorder = new TrafficRecorder()
    inspector = await startInspector({
      addr: '127.0.0.1:0',
      addrExplicit: true,
      token: null,
      admin: true,
      layout,
      recorder,
      replay: createReplayer({ recorder, handler: () => fakeMcp() }),
    })
  })
  after(() => inspector.close())

  it('serves the tab and the current layout', async () => {
    const page = await authed(inspector, '/')
    assert.match(page.body, /data-tab="config"/)
    assert.equal((await authed(inspector, '/js/config.js')).status, 200)
    const config = JSON.parse((await authed(inspector, '/api/config')).body) as unknown
    assert.deepEqual(config, {
      file: null,
      upstreams: [{ name: '', kind: 'http', value: 'http://127.0.0.1:3000/mcp' }],
    })
  })

  it('validates, applies and saves with the upstreams-file rules', async () => {
    const bad = await authed(inspector, '/api/config/validate', {
      upstreams: [
        { name: 'a', kind: 'http', value: 'http://x/' },
        { name: 'a', kind: 'http', value: 'http://y/' },
      ],
    })
    assert.equal(bad.status, 400)
    assert.match(bad.body, /used twice/)
    const rows = [
      { name: 'docs', kind: 'http', value: 'http://127.0.0.1:3001/mcp' },
      { name: 'files', kind: 'stdio', value: 'npx files' },
    ]
    const valid = JSON.parse(
      (await authed(inspector, '/api/config/validate', { upstreams: rows })).body,
    ) as { toml: string }
    assert.match(valid.toml, /\[upstreams\.files\]\nstdio = "npx files"/)
    assert.equal(applied.length, 0)

    const apply = await authed(inspector, '/api/config/apply', { upstreams: rows })
    assert.equal(apply.status, 200)
    assert.deepEqual(applied, [
      [
        { kind: 'http', name: 'docs', url: 'http://127.0.0.1:3001/mcp' },
        { kind: 'stdio', name: 'files', command: 'npx files' },
      ],
    ])
    const save = JSON.parse(
      (await authed(inspector, '/api/config/save', { upstreams: rows })).body,
    ) as { path: string }
    assert.equal(save.path, '/tmp/saved.toml')
    assert.equal(saved.length, 1)
    const foreign = await authed(
      inspector,
      '/api/config/apply',
      { upstreams: rows },
      {
        origin: 'http://evil.example',
      },
    )
    assert.equal(foreign.status, 403)
    assert.equal(applied.length, 1)
  })
})
