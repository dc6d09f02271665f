// A `node --import` preload that resolves every `*.localhost` name to loopback, as browsers and
// curl do (RFC 6761) but Node's resolver here does not: `dns.lookup` (callback form, with or
// without options, `all: true` too) and `dns.promises.lookup` answer 127.0.0.1, or ::1 when
// family 6 is asked for. Every other name goes to the original functions. Tunnel URLs look like
// `http://<sub>--<slug>.localhost:<port>/mcp`, so tools run with this preload can reach them.
//
// Use: NODE_OPTIONS="--import /abs/path/test/helpers/localhost-dns.mjs" <command>
import dns from 'node:dns'
import { syncBuiltinESMExports } from 'node:module'

/** True for `x.localhost` and deeper names (case-insensitive, trailing dot allowed). */
function isLocalhostSubdomain(hostname) {
  return typeof hostname === 'string' && /\.localhost\.?$/i.test(hostname)
}

/** The loopback answer for the lookup options (a family number or an options object). */
function loopback(options) {
  const family = typeof options === 'number' ? options : Number(options?.family ?? 0)
  const answer = family === 6 ? { address: '::1', family: 6 } : { address: '127.0.0.1', family: 4 }
  const all = typeof options === 'object' && options !== null && options.all === true
  return { answer, all }
}

const originalLookup = dns.lookup
const originalPromisesLookup = dns.promises.lookup

function lookup(hostname, options, callback) {
  if (!isLocalhostSubdomain(hostname)) return originalLookup.call(dns, hostname, options, callback)
  if (typeof options === 'function') {
    callback = options
    options = undefined
  }
  const { answer, all } = loopback(options)
  process.nextTick(() => {
    if (all) callback(null, [answer])
    else callback(null, answer.address, answer.family)
  })
  return {}
}

async function promisesLookup(hostname, options) {
  if (!isLocalhostSubdomain(hostname))
    return originalPromisesLookup.call(dns.promises, hostname, options)
  const { answer, all } = loopback(options)
  return all ? [answer] : answer
}

dns.lookup = lookup
dns.promises.lookup = promisesLookup
// `import { lookup } from 'node:dns'` binds to the ESM namespace: copy the patched values there.
syncBuiltinESMExports()
