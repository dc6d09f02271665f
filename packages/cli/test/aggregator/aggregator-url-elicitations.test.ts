/**
 * URL-mode elicitations through the aggregator (a stdio upstream, SDK agents): see
 * url-elicitation-cases.ts. Before, the completion reached every session.
 */
import { after, before, describe } from 'node:test'
import { closeAllAggregators, startAggregator, type Aggregator } from './aggregator-harness.js'
import { urlElicitationCases } from '../helpers/url-elicitation-cases.js'

after(closeAllAggregators)

describe('URL-mode elicitations through the aggregator', { timeout: 60_000 }, () => {
  let agg: Aggregator

  before(async () => {
    agg = await startAggregator([{ name: 'b', stdio: ['--label', 'b'] }])
  })

  urlElicitationCases(() => ({ url: agg.url, tool: (name) => `b__${name}`, logger: agg.logger }))
})
