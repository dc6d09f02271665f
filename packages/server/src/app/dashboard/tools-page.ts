/**
 * The Tools tab of a tunnel: what rug-pull protection pinned. Tools that changed, appeared, were
 * renamed or vanished since the owner approved them come first, each with a field-by-field diff
 * of the approved and current definitions and Approve / Reject buttons (which name the hash the
 * owner saw); then the approved tools and the history of decisions. On a zero-knowledge tunnel
 * only hashes are kept, and the page says so.
 */
import type { RugPullMode } from '../../governance/policy.js'
import { AWAITING, type ToolsView, type ToolView } from '../../governance/tools-view.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { TunnelView } from '../tunnel-view.js'
import { tunnelHeading, tunnelTabs } from './governance-pages.js'
import { formatStoredTime } from './format.js'
import { shownName, shownText, withEscapeBudget } from './shown-name.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'

/** What each status means, in a few words. */
const STATUS_TEXT: Readonly<Record<string, string>> = {
  approved: 'approved',
  changed: 'changed since approved',
  new: 'new since approval',
  renamed: 'renamed',
  removed: 'gone from the list',
  rejected: 'rejected',
}

/** What each mode does, for the page. */
const MODE_TEXT: Readonly<Record<RugPullMode, string>> = {
  off: 'Rug-pull protection is off for this tunnel: tools are not compared.',
  alert:
    'Rug-pull protection is in alert mode: agents still see and call changed tools; you are told here and by the tool.changed webhook. Rejected definitions are held.',
  hold: 'Rug-pull protection is in hold mode: changed, new and renamed tools are hidden from agents and their calls refused (tool_held) until you approve them.',
}

/** What the Tools tab shows. */
interface ToolsPageData {
  readonly viewer: Viewer
  readonly tunnel: TunnelView
  readonly view: ToolsView
  readonly mode: RugPullMode
  readonly zeroKnowledge: boolean
  readonly notices?: readonly Notice[]
}

/** The Tools tab, its hidden characters' escapes bounded for the whole page. */
export function toolsPage(d: ToolsPageData): SafeHtml {
  return withEscapeBudget(() => renderToolsPage(d))
}

function renderToolsPage(d: ToolsPageData): SafeHtml {
  const t = d.tunnel
  const awaiting = d.view.tools.filter((x) => AWAITING.includes(x.status))
  const others = d.view.tools.filter((x) => !AWAITING.includes(x.status))
  const csrf = csrfField(d.viewer.csrfToken)
  return page(
    { title: `${t.name ?? t.subdomain}: tools`, viewer: d.viewer, notices: d.notices ?? [] },
    html`${tunnelHeading(t)}${tunnelTabs(t, 'tools')}
<p class="muted" id="rug-mode" data-mode="${d.mode}">${MODE_TEXT[d.mode]} Change it on the <a href="/dashboard/tunnels/${t.id}/policy">Policy</a> tab (<code>rug_pull.mode</code>).</p>
${
  d.zeroKnowledge
    ? html`<p class="notice info" id="zk-tools">Zero-knowledge mode: Burrow keeps only a hash of each tool's definition, not its text, so it can tell you that a tool changed but not show what changed. Compare the definitions on your machine (<code>tools/list</code> of your server) before you approve.</p>`
    : ''
}
${
  d.view.baselined
    ? ''
    : html`<p class="card" id="no-baseline">No tool list has crossed this tunnel yet. The first complete <code>tools/list</code> an agent asks for is taken as approved; later changes are shown here.</p>`
}
${d.view.listChangedAt ? html`<p class="muted" id="list-changed">Your server last said its tools changed (<code>notifications/tools/list_changed</code>) at ${when(d.view.listChangedAt)}; the next <code>tools/list</code> is compared.</p>` : ''}
${
  awaiting.length === 0
    ? d.view.baselined
      ? html`<p class="card" id="no-changes">No tool has changed since it was approved (the first <code>tools/list</code> counts as approved).</p>`
      : ''
    : html`<h2>Waiting for you</h2>${lookalikeAlert(awaiting)}${awaiting.map((x) => pendingCard(t, x, csrf, d.zeroKnowledge))}`
}
${
  others.length === 0
    ? ''
    : html`<h2>Tools</h2>
<table id="tools"><thead><tr><th>Tool</th><th>Status</th><th>Hash</th><th>Approved</th></tr></thead><tbody>${others.map(
        (x) =>
          html`<tr data-tool="${x.name}"><td>${shownName(x.name)}${looksLikeFlag(x)}</td><td>${badge(x)}</td><td><code class="muted">${short(x.currentHash)}</code></td><td class="muted">${when(x.approvedAt)}${x.approvedBy ? html` (${x.approvedBy})` : ''}</td></tr>`,
      )}</tbody></table>`
}
<h2>Decisions</h2>
${
  d.view.decisions.length === 0
    ? html`<p class="card muted" id="no-decisions">No approvals or rejections yet.</p>`
    : html`<table id="decisions"><thead><tr><th>When</th><th>Tool</th><th>Decision</th><th>Hash</th><th>By</th></tr></thead><tbody>${d.view.decisions.map(
        (x) =>
          html`<tr><td>${x.decidedAt}</td><td>${shownName(x.name)}</td><td>${x.decision}</td><td><code class="muted">${short(x.hash)}</code></td><td>${x.decidedBy}</td></tr>`,
      )}</tbody></table>`
}`,
  )
}

function pendingCard(t: TunnelView, x: ToolView, csrf: SafeHtml, zeroKnowledge: boolean): SafeHtml {
  const action = `/dashboard/tunnels/${t.id}/tools/decide`
  const what =
    x.status === 'renamed'
      ? html`It has the definition of ${shownName(x.renamedFrom)}, which is gone from the list: a tool renamed (perhaps to shadow another).`
      : x.status === 'new'
        ? html`It was not in the list you approved.`
        : x.status === 'removed'
          ? html`It was approved and is no longer in the list. Acknowledging forgets it; if it comes back it is new.`
          : html`Its definition differs from the one you approved.`
  const fields = hidden(x)
  return html`<section class="card tool-change" data-tool="${x.name}" data-status="${x.status}">
  <h3>${shownName(x.name)} ${badge(x)}${looksLikeFlag(x)}</h3>
  <p>${what}${looksLikeText(x)}${x.changedAt ? html` <span class="muted">Seen ${when(x.changedAt)}.</span>` : ''}</p>
  <p class="muted">Approved hash <code>${short(x.approvedHash)}</code> · current hash <code>${short(x.currentHash)}</code></p>
  ${diffTable(x, zeroKnowledge)}
  <form method="post" action="${action}" class="inline">${csrf}${fields}<input type="hidden" name="decision" value="approved" /><button type="submit" data-approve="${x.name}">${x.status === 'removed' ? 'Acknowledge' : 'Approve'}</button></form>
  ${x.status === 'removed' ? '' : html`<form method="post" action="${action}" class="inline">${csrf}${fields}<input type="hidden" name="decision" value="rejected" /><button type="submit" class="danger" data-reject="${x.name}">Reject</button></form>`}
</section>`
}

/** The tool a card's form names (its `tool` field, see `hidden`), or null when it names none. */
export function formToolName(field: string | null): string | null {
  if (field === null) return null
  try {
    const name: unknown = JSON.parse(field)
    return typeof name === 'string' ? name : null
  } catch {
    return null
  }
}

/**
 * What a card's forms send: the tool's name as JSON text, and the hash and status the owner saw
 * (the decision applies only while the tool still has both). A browser rewrites a lone CR or LF
 * in a form's value to CRLF before sending it, so a raw `read_notes\n` arrived as
 * `read_notes\r\n`, which a server may list as another tool; JSON escapes both (and every other
 * control character and any lone surrogate), so the name arrives as it was listed.
 */
function hidden(x: ToolView): SafeHtml {
  return html`<input type="hidden" name="tool" value="${JSON.stringify(x.name)}" /><input type="hidden" name="hash" value="${x.currentHash ?? ''}" /><input type="hidden" name="status" value="${x.status}" />`
}

function diffTable(x: ToolView, zeroKnowledge: boolean): SafeHtml {
  if (x.status === 'removed') return html``
  // In zero-knowledge mode no definition is shown, even one kept from before the mode.
  if (zeroKnowledge)
    return html`<p class="muted">No definitions are kept for this tunnel: only the hashes differ.</p>`
  if (x.diff === null) {
    return x.currentDefinition === null
      ? html`<p class="muted" data-not-kept>This definition was not kept (a tunnel keeps 4 Mi characters of tool definitions; past that, only their hashes): only the hashes differ.</p>`
      : html`<details open><summary>Definition</summary><pre class="definition">${shownText(pretty(x.currentDefinition))}</pre></details>`
  }
  // The hashes differ (the card is for a change): a change past the 256 KiB kept, or behind a
  // mask, leaves equal texts. "No field differs." read as nothing to review.
  if (x.diff.length === 0)
    return html`<p class="muted" data-not-kept>No difference shows in the definitions kept (masked by your redaction, and cut at 256 KiB), but their hashes differ: what changed is in what was not kept. Compare the definitions on your machine (<code>tools/list</code> of your server) before you approve.</p>`
  return html`<table class="diff"><thead><tr><th>Field</th><th>Approved</th><th>Now</th></tr></thead><tbody>${x.diff.map(
    (c) =>
      html`<tr data-path="${c.path}"><td>${shownName(c.path)}</td><td class="before"><pre>${c.before === null ? '(absent)' : shownText(c.before)}</pre></td><td class="after"><pre>${c.after === null ? '(absent)' : shownText(c.after)}</pre></td></tr>`,
  )}</tbody></table>`
}

function badge(x: ToolView): SafeHtml {
  const kind = x.status === 'approved' ? 'online' : x.status === 'removed' ? 'offline' : 'stopped'
  return html`<span class="badge ${kind}" data-status="${x.status}">${STATUS_TEXT[x.status] ?? x.status}</span>`
}

/** Lookalikes named in the alert above the cards; the rest are counted (each card says so too). */
const ALERT_NAMES = 10

/** The alert over the waiting tools when some of their names look like other tools'. */
function lookalikeAlert(awaiting: readonly ToolView[]): SafeHtml | '' {
  const alike = awaiting.filter((x) => x.looksLike !== null)
  if (alike.length === 0) return ''
  const named = alike.slice(0, ALERT_NAMES)
  const more = alike.length - named.length
  return html`<p class="notice warn" id="lookalikes" role="alert">${alike.length === 1 ? 'A tool waiting here has a name that looks' : `${alike.length} tools waiting here have names that look`} like another tool's: ${named.map(
    (x, i) => html`${i > 0 ? ', ' : ''}${shownName(x.name)} looks like ${shownName(x.looksLike)}`,
  )}${more > 0 ? ` and ${more} more` : ''}. An agent may take one for the other: approve only what you expect.</p>`
}

/** The flag of a tool whose name looks like another tool's (the same UTS #39 skeleton). */
function looksLikeFlag(x: ToolView): SafeHtml | '' {
  if (x.looksLike === null) return ''
  return html` <span class="badge stopped" data-looks-like="${x.looksLike}" title="Its letters imitate another tool's name (Unicode confusables): an agent may take one for the other.">looks like ${shownName(x.looksLike)}</span>`
}

/** The card's sentence about such a name. */
function looksLikeText(x: ToolView): SafeHtml | '' {
  if (x.looksLike === null) return ''
  return html` <strong class="looks-like">Its name looks like ${shownName(x.looksLike)}, another tool of this tunnel, but is a different name: check that it is not posing as that tool.</strong>`
}

function short(hash: string | null): string {
  return hash === null ? '—' : hash.slice(0, 12)
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** A stored time as the other pages write one (`Nov 29, 2026, 20:30 UTC`); '' for none. */
function when(at: string | null | undefined): string {
  return at ? formatStoredTime(at) : ''
}
