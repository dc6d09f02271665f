/**
 * The page's detail pane (`/js/detail.js`): one exchange's request and response, and Replay
 * with its result beside the original.
 * Kept as a string so the build ships it with the compiled code; it runs in the browser, where
 * recorded data is only ever inserted as text.
 */

/** The browser script (an ES module) text. */
export const DETAIL_SCRIPT = String.raw`// The detail pane: one exchange's request and response, and Replay, whose result is shown
// beside the original response.
import { api, bodyNode, clear, el, formatClock, formatMs, headersNode, messagesNode, statusClass } from './dom.js'

const pane = document.getElementById('detail')
const replays = new Map()
let current = null
let refreshTimer = null
let loading = 0

export function select(id) {
  current = id
  load(id)
}

export function exchangeUpdated(summary) {
  if (summary.id !== current || refreshTimer !== null) return
  refreshTimer = setTimeout(() => {
    refreshTimer = null
    if (current !== null) load(current)
  }, 250)
}

export function exchangesCleared() {
  current = null
  pane.removeAttribute('data-id')
  replays.clear()
  clear(pane)
  pane.append(el('p', { class: 'placeholder', text: 'Select a request to see it here.' }))
}

async function load(id) {
  const ticket = ++loading
  let detail
  try {
    detail = await api('/api/traffic/' + id)
  } catch (err) {
    if (ticket !== loading) return
    clear(pane)
    pane.append(el('p', { class: 'error', text: err.message }))
    return
  }
  if (ticket !== loading || id !== current) return
  render(detail)
}

function responsePanel(title, r) {
  const panel = el('section', { class: 'panel' })
  const status = r.status === null ? 'no response' : 'HTTP ' + r.status
  const timing = r.durationMs !== null && r.durationMs !== undefined
    ? formatMs(r.durationMs)
    : (r.latencyMs !== null ? 'head after ' + formatMs(r.latencyMs) + ', still streaming' : 'waiting')
  panel.append(el('h3', {}, [
    title + ' ',
    el('span', { class: 'badge ' + statusClass(r.status), text: status }),
    r.rpcError ? el('span', { class: 'badge st-4xx', text: 'JSON-RPC error' }) : null,
    el('span', { class: 'muted small', text: ' ' + timing }),
  ]))
  if (r.error) panel.append(el('p', { class: 'error', text: r.error }))
  panel.append(headersNode(r.headers))
  if (r.kind === 'sse') panel.append(messagesNode(r.messages, r.messagesTruncated, r.messageCount))
  else if (r.kind === 'encoded') panel.append(el('p', { class: 'muted', text: 'Compressed body (' + r.headers['content-encoding'] + '), not shown.' }))
  else panel.append(bodyNode(r.body))
  return panel
}

function render(d) {
  // A re-render (the exchange is still streaming) keeps the scroll and the opened header lists.
  const scroll = pane.scrollTop
  const sameExchange = pane.getAttribute('data-id') === String(d.id)
  const opened = Array.from(pane.querySelectorAll('details')).map((node) => node.open)
  pane.setAttribute('data-id', String(d.id))
  clear(pane)
  const title = d.rpcMethod || (d.method + ' ' + d.path)
  const replay = el('button', {
    id: 'replay',
    class: 'primary',
    text: 'Replay',
    disabled: !d.replayable,
    title: d.replayable
      ? 'Send this request again to the local server (not through the tunnel)'
      : 'Only POST requests whose whole body was kept can be replayed',
  })
  replay.addEventListener('click', () => doReplay(d.id, replay))
  pane.append(el('div', { class: 'detail-head' }, [
    el('div', {}, [
      el('h2', {}, [title, d.toolName ? el('span', { class: 'tool-name', text: ' ' + d.toolName }) : null]),
      el('p', {
        class: 'muted small',
        text: d.method + ' ' + d.path + '  ·  ' + formatClock(d.startedAt) +
          (d.rpcId !== null ? '  ·  id ' + JSON.stringify(d.rpcId) : '') +
          (d.sessionId ? '  ·  session ' + d.sessionId : ''),
      }),
    ]),
    replay,
  ]))
  const request = el('section', { class: 'panel' }, [
    el('h3', { text: 'Request' }),
    headersNode(d.requestHeaders),
    bodyNode(d.requestBody),
  ])
  const original = responsePanel('Response', {
    status: d.status, headers: d.responseHeaders, kind: d.responseKind, body: d.responseBody,
    messages: d.messages, messagesTruncated: d.messagesTruncated, messageCount: d.messageCount,
    rpcError: d.rpcError, durationMs: d.durationMs, latencyMs: d.latencyMs,
    error: d.state === 'failed' || d.state === 'aborted' ? d.error : null,
  })
  original.id = 'original-response'
  const responses = el('div', { class: 'responses' }, [original])
  const result = replays.get(d.id)
  if (result) responses.append(replayPanel(result))
  pane.append(request, responses)
  if (sameExchange) {
    pane.querySelectorAll('details').forEach((node, i) => {
      if (opened[i]) node.open = true
    })
    pane.scrollTop = scroll
  }
}

function replayPanel(result) {
  if (result.failed) {
    const panel = el('section', { class: 'panel replay' }, [el('h3', { text: 'Replay' })])
    panel.append(el('p', { class: 'error', text: result.failed }))
    panel.id = 'replay-response'
    return panel
  }
  const panel = responsePanel('Replay', result)
  panel.classList.add('replay')
  panel.id = 'replay-response'
  panel.insertBefore(el('p', {
    class: 'muted small',
    text: 'Replayed at ' + formatClock(result.startedAt) +
      (result.sentId ? ' with request id "' + result.sentId + '"' : ''),
  }), panel.children[1])
  if (result.note) panel.insertBefore(el('p', { class: 'muted small', text: result.note }), panel.children[2])
  return panel
}

async function doReplay(id, button) {
  button.disabled = true
  button.textContent = 'Replaying…'
  try {
    replays.set(id, await api('/api/traffic/' + id + '/replay', {}))
  } catch (err) {
    replays.set(id, { failed: 'Replay failed: ' + err.message })
  }
  if (current === id) load(id)
}
`
