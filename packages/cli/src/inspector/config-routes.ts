/**
 * The Config tab's API, which exists only with `--inspect-admin` (without it these paths are 404
 * like any unknown path):
 *
 *   GET  /api/config            the current layout as rows, and the file Save writes
 *   POST /api/config/validate   check rows; returns the upstreams-file TOML they make
 *   POST /api/config/apply      switch `up` to the rows' layout (rebuild and reconnect)
 *   POST /api/config/save       write the rows' layout to the upstreams file
 *
 * POST bodies are JSON `{ "upstreams": [{ "name", "kind", "value" }] }`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isRecord, type Logger } from '@burrow/protocol'
import { UsageError } from '../cli-errors.js'
import type { UpstreamSpec } from '../upstreams/upstream-spec.js'
import { HttpProblem, readJsonBody, sendJson } from './inspector-http.js'
import { rowsFromSpecs, validateLayout, type ValidLayout } from './layout-form.js'
import { unsavedDetails } from './upstreams-toml.js'

/** What `up` lets the Config tab read and change. */
export interface InspectorLayout {
  /** The layout in use. */
  get(): readonly UpstreamSpec[]
  /** Use `specs` from now on: rebuild the local handler and reconnect the tunnel. */
  apply(specs: readonly UpstreamSpec[]): Promise<void>
  /** Write `specs` as an upstreams file; resolves with the path written. */
  save(specs: readonly UpstreamSpec[]): Promise<string>
  /** The upstreams file Save writes, if known before saving. */
  readonly file: string | null
}

/** Serializes apply and save, which must not overlap. */
export interface ConfigRoutesState {
  busy: boolean
}

/** Serve `req` if it is a config route; resolves false when it is not one. */
export async function handleConfigRoute(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  layout: InspectorLayout,
  state: ConfigRoutesState,
  logger: Logger,
): Promise<boolean> {
  const action = /^\/api\/config(?:\/(validate|apply|save))?$/.exec(url.pathname)
  if (!action) return false
  if (action[1] === undefined) {
    if (req.method !== 'GET') throw new HttpProblem(405, 'use GET here')
    sendJson(res, 200, { file: layout.file, upstreams: rowsFromSpecs(layout.get()) })
    return true
  }
  if (req.method !== 'POST') throw new HttpProblem(405, 'use POST here')
  const body = await readJsonBody(req)
  const valid = validated(body, layout)
  if (action[1] === 'validate') {
    sendJson(res, 200, { ok: true, toml: valid.toml, upstreams: rowsFromSpecs(valid.specs) })
    return true
  }
  if (state.busy) throw new HttpProblem(409, 'another apply or save is still running; try again')
  state.busy = true
  try {
    if (action[1] === 'apply') {
      await layout.apply(valid.specs)
      logger.info(`inspector: applied a new upstream layout (${valid.specs.length} upstream(s))`)
      sendJson(res, 200, { ok: true, upstreams: rowsFromSpecs(layout.get()) })
    } else {
      const path = await layout.save(valid.specs)
      logger.info(`inspector: saved the upstream layout to ${path}`)
      sendJson(res, 200, { ok: true, path, toml: valid.toml, notes: unsavedDetails(valid.specs) })
    }
  } catch (err) {
    if (err instanceof HttpProblem) throw err
    // The layout is valid but cannot run here (a command that does not exist).
    if (err instanceof UsageError) throw new HttpProblem(422, err.message)
    const what = action[1] === 'apply' ? 'applying the layout' : 'saving the layout'
    throw new HttpProblem(500, `${what} failed: ${(err as Error).message}`)
  } finally {
    state.busy = false
  }
  return true
}

function validated(body: unknown, layout: InspectorLayout): ValidLayout {
  try {
    return validateLayout(isRecord(body) ? body.upstreams : undefined, layout.get())
  } catch (err) {
    if (err instanceof UsageError) throw new HttpProblem(400, err.message)
    throw err
  }
}
