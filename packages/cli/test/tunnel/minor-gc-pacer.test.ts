// The minor-collection pacer of `burrow up`: one collection per threshold of relayed bytes, and
// a real V8 scavenge when it asks for one.
import assert from 'node:assert/strict'
import { PerformanceObserver, constants } from 'node:perf_hooks'
import { describe, it } from 'node:test'
import { loadMinorGc, MinorGcPacer } from '../../src/tunnel/minor-gc-pacer.js'

describe('MinorGcPacer', () => {
  it('collects once each time the relayed bytes pass the threshold', () => {
    let collections = 0
    const pacer = new MinorGcPacer(() => collections++, 100)
    pacer.add(60)
    assert.equal(collections, 0)
    pacer.add(40)
    assert.equal(collections, 1)
    for (let i = 0; i < 10; i++) pacer.add(30)
    assert.equal(collections, 3)
  })

  it('does nothing without a collector', () => {
    const pacer = new MinorGcPacer(null, 1)
    pacer.add(10)
    assert.equal(pacer.active, false)
  })

  it('runs a real minor collection of this Node', async () => {
    const gc = loadMinorGc()
    assert.ok(gc, 'this Node let us reach its collector')
    const seen = new Promise<number>((resolve) => {
      const observer = new PerformanceObserver((list) => {
        const minor = list.getEntries().find((e) => {
          const detail = (e as { detail?: { kind?: number } }).detail
          return detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR
        })
        if (!minor) return
        observer.disconnect()
        resolve(minor.duration)
      })
      observer.observe({ entryTypes: ['gc'] })
    })
    new MinorGcPacer(gc, 10).add(10)
    assert.ok((await seen) >= 0)
  })
})
