/**
 * The page's entry script (`/js/main.js`): tabs, the live traffic list fed by the SSE stream,
 * and selecting a request.
 * Kept as a string so the build ships it with the compiled code; it runs in the browser, where
 * recorded data is only ever inserted as text.
 */

/** The browser script (an ES module) text. */
export const MAIN_SCRIPT = String.raw`// The inspector page: tabs, the live traffic list fed by /api/traffic/stream, and selection.
import { clear, el, formatClock, formatMs, statusClass, api } from './dom.js'
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
  tr.classList.toggle('failed', s.state === 'failed' || s.state === 'aborted')
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

function connect() {
  const source = new EventSource('/api/traffic/stream')
  source.addEventListener('open', () => setLive('on', 'live'))
  source.addEventListener('snapshot', (e) => {
    const data = JSON.parse(e.data)
    limit = data.limit
    // Reconnected: rebuild from the snapshot, keeping the selection when it is still there.
    reset()
    for (const s of data.exchanges) upsert(s)
    if (selected !== null && rows.has(selected)) rows.get(selected).tr.classList.add('selected')
  })
  source.addEventListener('exchanges', (e) => {
    for (const s of JSON.parse(e.data)) upsert(s)
  })
  source.addEventListener('cleared', () => {
    reset()
    selected = null
    exchangesCleared()
  })
  source.addEventListener('error', () => {
    setLive('off', 'reconnecting…')
    api('/api/traffic').catch((err) => {
      if (err.status === 401) {
        source.close()
        setLive('off', 'token rejected: open the URL that burrow up printed')
      }
    })
  })
}

trim()
connect()
`
