/**
 * The page's shared helpers (`/js/dom.js`): the token, building elements with text only,
 * formatting, pretty JSON, and the fetch wrapper the other scripts use.
 * Kept as a string so the build ships it with the compiled code; it runs in the browser, where
 * recorded data is only ever inserted as text.
 */

/** The browser script (an ES module) text. */
export const DOM_SCRIPT = String.raw`// Shared helpers of the inspector page. Every piece of recorded data enters the page as text
// (textContent or text nodes), never as markup, so a hostile body cannot run script here.

// The token comes in the URL's fragment (#token=…), which the browser never sends to a server,
// and is kept in this tab's session storage, which belongs to this origin (host and port) alone.
// It leaves the address bar at once. Every call sends it as a Bearer header; there is no cookie,
// since a browser would send a cookie for 127.0.0.1 to every port of it.
const TOKEN_KEY = 'burrow-inspector-token'
export const token = takeToken()

function takeToken() {
  const given = new URLSearchParams(location.hash.slice(1)).get('token') ||
    new URLSearchParams(location.search).get('token')
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given)
    history.replaceState(null, '', location.pathname)
    return given
  }
  return sessionStorage.getItem(TOKEN_KEY)
}

// A new printed URL pasted into this tab (burrow up restarted with a new token) changes only the
// fragment, which does not reload the page: take the token and start again.
addEventListener('hashchange', () => {
  const given = new URLSearchParams(location.hash.slice(1)).get('token')
  if (!given) return
  sessionStorage.setItem(TOKEN_KEY, given)
  history.replaceState(null, '', location.pathname)
  location.reload()
})

export function authHeaders(extra) {
  return Object.assign({ authorization: 'Bearer ' + (token || '') }, extra || {})
}

// Before the token goes anywhere, the server proves it holds it (HMAC of a fresh nonce): once
// burrow up has stopped, another program may hold this port, and must not be handed the token
// by a reconnect or a click. Resolves true, false (something else answers here), or throws when
// nothing answers. Where the browser offers no Web Crypto (plain HTTP on a non-loopback
// address), the check cannot be made and is skipped.
export async function serverHoldsToken() {
  if (!globalThis.crypto || !crypto.subtle) return true
  const nonce = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) =>
    b.toString(16).padStart(2, '0')).join('')
  const res = await fetch('/api/proof?nonce=' + nonce, { headers: { accept: 'application/json' } })
  let proof = null
  try {
    proof = (await res.json()).proof
  } catch {
    return false
  }
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(token || ''),
    { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  // Bound to this tab's host and port: an answer relayed from an inspector elsewhere that has
  // the same fixed token covers that inspector's address, not this one.
  const signed = new TextEncoder().encode(location.host.toLowerCase() + '\n' + nonce)
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed))
  const expected = Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')
  return proof === expected
}

// Said when the proof fails: a wrong token and another program on the port look the same here.
export const NOT_THE_INSPECTOR =
  'token rejected: it does not match what answers on this port; open the URL that burrow up printed'

export function el(tag, attrs, children) {
  const node = document.createElement(tag)
  for (const key of Object.keys(attrs || {})) {
    const value = attrs[key]
    if (value === undefined || value === null || value === false) continue
    if (key === 'class') node.className = value
    else if (key === 'text') node.textContent = String(value)
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value)
    else node.setAttribute(key, value === true ? '' : String(value))
  }
  for (const child of children || []) {
    if (child !== null && child !== undefined && child !== false) node.append(child)
  }
  return node
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove()
}

function pad(n, width) {
  return String(n).padStart(width, '0')
}

export function formatClock(epochMs) {
  const d = new Date(epochMs)
  return pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2) +
    '.' + pad(d.getMilliseconds(), 3)
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return ''
  if (ms < 1000) return Math.round(ms) + ' ms'
  return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s'
}

export function formatBytes(n) {
  if (n < 1024) return n + ' B'
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB'
  return (n / 1024 / 1024).toFixed(1) + ' MiB'
}

const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g

// Pretty JSON with light highlighting; spans are filled with textContent only.
export function jsonNode(value) {
  const pre = el('pre', { class: 'code' })
  const text = JSON.stringify(value, null, 2)
  if (text === undefined) {
    pre.textContent = String(value)
    return pre
  }
  if (text.length > 200000) {
    pre.textContent = text
    return pre
  }
  let last = 0
  TOKEN.lastIndex = 0
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    if (m.index > last) pre.append(text.slice(last, m.index))
    if (m[1] !== undefined) {
      pre.append(el('span', { class: m[2] ? 'j-key' : 'j-str', text: m[1] }))
      if (m[2]) pre.append(m[2])
    } else if (m[3] !== undefined) pre.append(el('span', { class: 'j-lit', text: m[3] }))
    else pre.append(el('span', { class: 'j-num', text: m[4] }))
    last = TOKEN.lastIndex
  }
  pre.append(text.slice(last))
  return pre
}

// A captured body ({text, bytes, truncated}): pretty JSON when it parses, else the raw text.
export function bodyNode(body) {
  if (!body) return el('p', { class: 'muted', text: 'No body kept.' })
  if (body.text === '') return el('p', { class: 'muted', text: 'Empty body.' })
  let node
  try {
    node = jsonNode(JSON.parse(body.text))
  } catch {
    node = el('pre', { class: 'code', text: body.text })
  }
  const wrap = el('div', { class: 'body' }, [node])
  if (body.truncated) {
    wrap.prepend(el('p', {
      class: 'note',
      text: 'Showing the first ' + formatBytes(body.text.length) + ' of ' + formatBytes(body.bytes) + '.',
    }))
  }
  return wrap
}

// The JSON-RPC messages of an SSE response, each with its arrival time.
export function messagesNode(messages, truncated, count) {
  const list = el('ol', { class: 'messages' })
  for (const m of messages) {
    const meta = '+' + formatMs(m.at) + (m.eventId !== null ? '  ·  event id ' + m.eventId : '')
    list.append(el('li', {}, [el('div', { class: 'muted small', text: meta }), jsonNode(m.message)]))
  }
  const wrap = el('div', { class: 'body' }, [list])
  if (messages.length === 0) wrap.prepend(el('p', { class: 'muted', text: 'No events yet.' }))
  if (truncated) {
    wrap.append(el('p', { class: 'note', text: 'Only the first ' + messages.length + ' of ' + count + ' messages are kept.' }))
  }
  return wrap
}

export function headersNode(headers) {
  const names = Object.keys(headers || {}).sort()
  const table = el('table', { class: 'headers' })
  for (const name of names) {
    table.append(el('tr', {}, [el('th', { text: name }), el('td', { text: headers[name] })]))
  }
  return el('details', {}, [el('summary', { text: 'Headers (' + names.length + ')' }), table])
}

export function statusClass(status) {
  if (status === null || status === undefined) return 'st-none'
  if (status >= 500) return 'st-5xx'
  if (status >= 400) return 'st-4xx'
  if (status >= 300) return 'st-3xx'
  return 'st-2xx'
}

export async function api(path, body) {
  if (!(await serverHoldsToken())) {
    const err = new Error(NOT_THE_INSPECTOR)
    err.status = 0
    throw err
  }
  const init = body === undefined
    ? { headers: authHeaders({ accept: 'application/json' }) }
    : {
        method: 'POST',
        headers: authHeaders({ 'content-type': 'application/json', accept: 'application/json' }),
        body: JSON.stringify(body),
      }
  const res = await fetch(path, init)
  let data = null
  try {
    data = await res.json()
  } catch {
    data = null
  }
  if (!res.ok) {
    const message = data && typeof data.error === 'string' ? data.error : 'HTTP ' + res.status
    const err = new Error(message)
    err.status = res.status
    throw err
  }
  return data
}
`
