/**
 * Matching a resource URI against the URI templates upstreams list in `resources/templates/list`
 * (RFC 6570). Level 1 is matched as the RFC expands it: `{var}` stands for one value whose
 * reserved characters are percent-encoded, so it never spans `/`, `?` or `#`. Expressions with an operator
 * (`{+path}`, `{/segments}`, `{?query}`…, levels 2-4) match any run of characters, which is
 * lenient but enough to find the upstream that owns a URI.
 */

const EXPRESSION = /\{([^}]*)\}/g

/** A regular expression matching the URIs `template` expands to. */
export function uriTemplatePattern(template: string): RegExp {
  let source = ''
  let last = 0
  for (const match of template.matchAll(EXPRESSION)) {
    source += escape(template.slice(last, match.index))
    const body = match[1] ?? ''
    source += /^[+#./;?&]/.test(body) ? '.*' : '[^/?#]*'
    last = match.index + match[0].length
  }
  source += escape(template.slice(last))
  return new RegExp(`^${source}$`)
}

/** True when `uri` is one of the URIs `template` expands to. */
export function matchesUriTemplate(template: string, uri: string): boolean {
  return uriTemplatePattern(template).test(uri)
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
