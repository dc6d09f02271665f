/**
 * The page's entry script (`/js/main.js`): tabs, the live traffic list fed by the SSE stream,
 * and selecting a request.
 * Kept as a string so the build ships it with the compiled code; it runs in the browser, where
 * recorded data is only ever inserted as text.
 */

/** The browser script (an ES module) text. */
export const MAIN_SCRIPT = String.raw`// The inspector page: tabs, the live traffic list fed by /api/traffic/stream, and selection.
import {
  clear, el, formatClock, formatMs, statusClass, api, authHeaders, token, serverHoldsToken,
  NOT_THE_INSPECTOR,
} from './dom.js'
import { exchangeUpdated, exchangesCleared, select } from './detail.js'

const rows = new Map()
let limit = 500
let selected = null
const tbody = document.getElementById('rows')
const empty = document.getElementById('empty')
const live = document.getElementById('live')
const count = document.getElementById('count')

for (const tab of document.querySelectorAll('[data-tab]')) {
  tab.addEventListener('click', () => {
    for (const other of document.querySelectorAll('[data-tab]')) {
      other.setAttribute('aria-selected', String(other === tab))
    }
    for (const view of document.querySelectorAll('[data-view]')) {
      view.hidden = view.getAttribute('data-view') !== tab.getAttribute('data-tab')
    }
  })
}

document.getElementById('clear').addEventListener('click', () => {
  api('/api/traffic/clear', {}).catch((err) => setLive('error', err.message))
})

function label(s) {
  if (s.rpcMethod) return s.rpcMethod
  if (s.method === 'GET') return 'GET stream'
  if (s.method === 'DELETE') return 'DELETE session'
  return s.method + ' ' + s.path
}

function statusText(s) {
  if (s.status !== null) return String(s.status)
  if (s.state === 'pending') return '…'
  return s.state
}

function latencyText(s) {
  if (s.durationMs !== null) return formatMs(s.durationMs)
  if (s.latencyMs !== null) return formatMs(s.latencyMs) + ' …'
  return '…'
}

function fill(tr, s) {
  const cells = tr.children
  cells[0].textContent = formatClock(s.startedAt)
  cells[1].textContent = label(s)
  cells[1].title = label(s)
  cells[2].textContent = s.toolName || ''
  cells[2].title = s.toolName || ''
  cells[3].textContent = statusText(s)
  cells[3].className = 'status ' + statusClass(s.status) + (s.rpcError ? ' rpc-error' : '')
  cells[3].title = s.rpcError ? 'the answer carries a JSON-RPC or tool error' : (s.error || '')
  cells[4].textContent = latencyText(s)
  tr.classList.toggle('running', s.state === 'pending' || s.state === 'streaming')
  // The agent hanging up is how a GET stream ends, not a failure of it.
  const abandoned = s.state === 'aborted' && s.method !== 'GET'
  tr.classList.toggle('failed', s.state === 'failed' || abandoned)
}

function upsert(s) {
  let row = rows.get(s.id)
  if (!row) {
    const tr = el('tr', { 'data-id': s.id, tabindex: 0 }, [
      el('td', { class: 'time' }), el('td', { class: 'method' }), el('td', { class: 'tool' }),
      el('td', { class: 'status' }), el('td', { class: 'latency' }),
    ])
    tr.addEventListener('click', () => choose(s.id))
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') choose(s.id)
    })
    row = { tr, summary: s }
    rows.set(s.id, row)
    tbody.prepend(tr)
    trim()
  }
  row.summary = s
  fill(row.tr, s)
  exchangeUpdated(s)
}

function trim() {
  while (rows.size > limit) {
    const oldest = rows.keys().next().value
    rows.get(oldest).tr.remove()
    rows.delete(oldest)
  }
  empty.hidden = rows.size > 0
  count.textContent = rows.size === 1 ? '1 request' : rows.size + ' requests'
}

function reset() {
  rows.clear()
  clear(tbody)
  trim()
}

function choose(id) {
  if (selected !== null && rows.has(selected)) rows.get(selected).tr.classList.remove('selected')
  selected = id
  rows.get(id).tr.classList.add('selected')
  select(id)
}

function setLive(state, text) {
  live.className = 'live ' + state
  live.textContent = text
}

const NO_TOKEN = 'no token: open the URL that burrow up printed'

// The live feed is Server-Sent Events read through fetch, which (unlike EventSource) can send the
// token as a header. When the stream ends it reconnects and starts again from a fresh snapshot.
async function connect() {
  let res = null
  try {
    if (!(await serverHoldsToken())) {
      setLive('off', NOT_THE_INSPECTOR)
      return
    }
    res = await fetch('/api/traffic/stream', { headers: authHeaders({ accept: 'text/event-stream' }) })
  } catch {
    res = null
  }
  if (res && res.status === 401) {
    setLive('off', 'token rejected: open the URL that burrow up printed')
    return
  }
  if (res && res.ok && res.body) {
    setLive('on', 'live')
    try {
      await readEvents(res.body)
    } catch (err) {
      // An event the page could not take (it should not happen): start over from a snapshot.
      console.error(err)
      res.body.cancel().catch(() => {})
    }
  }
  setLive('off', 'reconnecting…')
  setTimeout(connect, 1000)
}

async function readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    let chunk
    try {
      chunk = await reader.read()
    } catch {
      return
    }
    if (chunk.done) return
    buffer += chunk.value
    let end
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      dispatch(buffer.slice(0, end))
      buffer = buffer.slice(end + 2)
    }
  }
}

function dispatch(block) {
  let event = 'message'
  const data = []
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'event') event = value
    else if (field === 'data') data.push(value)
  }
  if (data.length === 0) return
  const payload = JSON.parse(data.join('\n'))
  if (event === 'snapshot') {
    limit = payload.limit
    // Reconnected: rebuild from the snapshot, keeping the selection when it is still there.
    reset()
    for (const s of payload.exchanges) upsert(s)
    if (selected !== null && rows.has(selected)) rows.get(selected).tr.classList.add('selected')
  } else if (event === 'exchanges') {
    for (const s of payload) upsert(s)
  } else if (event === 'cleared') {
    reset()
    selected = null
    exchangesCleared()
  }
}

trim()
if (token) connect()
else setLive('off', NO_TOKEN)
`
