/**
 * The inspector's HTML: the app shell (traffic list and detail pane, plus the Config tab only
 * with `--inspect-admin`) and the plain page of a refusal. No data is ever put into this markup;
 * the scripts fetch it with the token and insert it as text.
 */

/** The app shell. */
export function inspectorPage(options: { readonly admin: boolean }): string {
  const configTab = options.admin
    ? '<button type="button" data-tab="config" aria-selected="false">Config</button>'
    : ''
  const configView = options.admin ? CONFIG_VIEW : ''
  const configScript = options.admin ? '<script type="module" src="/js/config.js"></script>' : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Burrow inspector</title>
<link rel="stylesheet" href="/style.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script type="module" src="/js/main.js"></script>
${configScript}
</head>
<body>
<header>
<h1><span class="mark">◆</span> Burrow inspector</h1>
<nav>
<button type="button" data-tab="traffic" aria-selected="true">Traffic</button>
${configTab}
</nav>
<span class="spacer"></span>
<span id="count" class="live-count muted small"></span>
<span id="live" class="live off">connecting…</span>
<button type="button" id="clear" title="Forget the recorded requests">Clear</button>
</header>
<main class="traffic" data-view="traffic">
<section class="list">
<table class="traffic-table">
<thead><tr><th>Time</th><th>Method</th><th>Tool</th><th>Status</th><th class="latency">Latency</th></tr></thead>
<tbody id="rows"></tbody>
</table>
<p id="empty">Waiting for traffic. Requests that agents send through the tunnel appear here as they happen.</p>
</section>
<section class="detail" id="detail"><p class="placeholder">Select a request to see it here.</p></section>
</main>
${configView}
</body>
</html>
`
}

const CONFIG_VIEW = `<main class="config" data-view="config" hidden>
<h2>Upstreams</h2>
<p class="muted small">The local MCP servers this tunnel serves. With several, each needs a name (a-z, 0-9, "_", "-"); tools are prefixed with it.</p>
<p id="config-file" class="muted small"></p>
<table>
<thead><tr><th>Name</th><th>Kind</th><th>URL or command</th><th></th></tr></thead>
<tbody id="config-rows"></tbody>
</table>
<div class="actions">
<button type="button" id="config-add">Add upstream</button>
<span class="spacer"></span>
<button type="button" id="config-validate">Validate</button>
<button type="button" id="config-save">Save</button>
<button type="button" id="config-apply" class="primary" title="Rebuild the local handler and reconnect the tunnel">Apply</button>
</div>
<div id="config-output"></div>
</main>`

/** The page answered for 401 and 403: a sentence, no scripts. */
export function refusalPage(status: 401 | 403, reason: string): string {
  const title = status === 401 ? '401 Unauthorized' : '403 Forbidden'
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title} · Burrow inspector</title></head>
<body>
<h1>${title}</h1>
<p>${escapeHtml(reason)}</p>
<p>The inspector prints its address, with the token, when <code>burrow up --inspect</code> starts: <code>http://127.0.0.1:4040/#token=…</code></p>
</body>
</html>
`
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  )
}
