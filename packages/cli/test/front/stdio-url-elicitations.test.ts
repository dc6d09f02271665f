/**
 * URL-mode elicitations of a single stdio server shared by several agents (SDK agents): see
 * url-elicitation-cases.ts. Before, the server's completion reached every session, and a URL-mode
 * elicitation went to an agent that declared forms only (found by a review).
 */
import { after, before, describe } from 'node:test'
import { fixturePath } from '../helpers/fixtures.js'
import { captureLogger, type CaptureLogger } from '../helpers/capture-logger.js'
import { closeAllFronts, serveStdioFront, type ServedFront } from '../helpers/serve-front.js'
import { urlElicitationCases } from '../helpers/url-elicitation-cases.js'

after(closeAllFronts)

describe('URL-mode elicitations of a stdio server', { timeout: 60_000 }, () => {
  let served: ServedFront
  const logger: CaptureLogger = captureLogger()

  before(async () => {
    const args = [fixturePath('agg-paged-server.mjs'), '--label', 'b']
    served = await serveStdioFront({ command: process.execPath, args, logger })
  })

  urlElicitationCases(() => ({ url: served.url, tool: (name) => name, logger }))
})
