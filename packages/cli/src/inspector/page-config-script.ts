/**
 * The Config tab's script (`/js/config.js`), served only with `--inspect-admin`: edit, validate,
 * apply and save the upstream layout.
 * Kept as a string so the build ships it with the compiled code; it runs in the browser, where
 * recorded data is only ever inserted as text.
 */

/** The browser script (an ES module) text. */
export const CONFIG_SCRIPT = String.raw`// The Config tab (served only with --inspect-admin): edit the upstream layout, check it with the
// upstreams-file rules, apply it to the running tunnel, or save it to the upstreams file.
import { api, clear, el } from './dom.js'

const body = document.getElementById('config-rows')
const output = document.getElementById('config-output')
const fileLabel = document.getElementById('config-file')
const buttons = ['config-add', 'config-validate', 'config-apply', 'config-save'].map((id) => document.getElementById(id))

function addRow(row) {
  const name = el('input', {
    class: 'name',
    'aria-label': 'name',
    placeholder: body.children.length === 0 ? 'name (optional if alone)' : 'name',
    spellcheck: 'false',
    value: row.name,
  })
  const kind = el('select', { class: 'kind', 'aria-label': 'kind' }, [
    el('option', { value: 'http', text: 'http' }),
    el('option', { value: 'stdio', text: 'stdio' }),
  ])
  kind.value = row.kind
  const value = el('input', {
    class: 'value',
    'aria-label': 'URL or command',
    spellcheck: 'false',
    value: row.value,
    placeholder: row.kind === 'http' ? 'http://127.0.0.1:3000/mcp' : 'npx my-server',
  })
  kind.addEventListener('change', () => {
    value.placeholder = kind.value === 'http' ? 'http://127.0.0.1:3000/mcp' : 'npx my-server'
  })
  const remove = el('button', { class: 'remove', title: 'Remove this upstream', text: 'Remove' })
  const tr = el('tr', {}, [el('td', {}, [name]), el('td', {}, [kind]), el('td', {}, [value]), el('td', {}, [remove])])
  remove.addEventListener('click', () => tr.remove())
  body.append(tr)
  return tr
}

function rows() {
  return Array.from(body.querySelectorAll('tr')).map((tr) => ({
    name: tr.querySelector('.name').value,
    kind: tr.querySelector('.kind').value,
    value: tr.querySelector('.value').value,
  }))
}

function show(kind, text, detail) {
  clear(output)
  output.append(el('p', { class: kind, text }))
  if (detail) output.append(el('pre', { class: 'code', text: detail }))
}

function render(config) {
  clear(body)
  for (const row of config.upstreams) addRow(row)
  fileLabel.textContent = config.file
    ? 'Save writes ' + config.file + ' (its comments are not kept).'
    : 'No upstreams file yet: Save creates one and shows where.'
}

async function run(label, action) {
  for (const b of buttons) b.disabled = true
  show('muted', label + '…')
  try {
    await action()
  } catch (err) {
    show('error', err.message)
  } finally {
    for (const b of buttons) b.disabled = false
  }
}

document.getElementById('config-add').addEventListener('click', () => {
  addRow({ name: '', kind: 'http', value: '' }).querySelector('.name').focus()
})
document.getElementById('config-validate').addEventListener('click', () => run('Checking', async () => {
  const result = await api('/api/config/validate', { upstreams: rows() })
  show('ok', 'Valid. As an upstreams file:', result.toml)
}))
document.getElementById('config-apply').addEventListener('click', () => run('Applying (the tunnel reconnects)', async () => {
  const result = await api('/api/config/apply', { upstreams: rows() })
  render({ upstreams: result.upstreams, file: (await api('/api/config')).file })
  show('ok', 'Applied: the tunnel now serves this layout.')
}))
document.getElementById('config-save').addEventListener('click', () => run('Saving', async () => {
  const result = await api('/api/config/save', { upstreams: rows() })
  const notes = result.notes.length > 0 ? '\n' + result.notes.join('\n') : ''
  show('ok', 'Saved to ' + result.path + '.' + notes, result.toml)
  fileLabel.textContent = 'Save writes ' + result.path + ' (its comments are not kept).'
}))

api('/api/config').then(render, (err) => show('error', 'Cannot read the layout: ' + err.message))
`
