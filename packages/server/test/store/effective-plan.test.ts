/** `effectivePlan`: a paid plan with an end date turns Free exactly at that end. */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { effectivePlan } from '../../src/store/effective-plan.js'

const END = new Date('2026-04-01T00:00:00.000Z')

describe('effectivePlan', () => {
  it('keeps the plan when no end is set', () => {
    assert.equal(effectivePlan('pro', null, new Date('2099-01-01T00:00:00.000Z')), 'pro')
    assert.equal(effectivePlan('free', null, END), 'free')
  })

  it('keeps the plan until the end, and is Free from the end on', () => {
    assert.equal(effectivePlan('scale', END, new Date(END.getTime() - 1)), 'scale')
    assert.equal(effectivePlan('scale', END, END), 'free')
    assert.equal(effectivePlan('pro', END, new Date(END.getTime() + 1)), 'free')
  })
})
