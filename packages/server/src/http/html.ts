/**
 * HTML written safely: the `html` tagged template escapes every interpolated value unless it is
 * already `SafeHtml` (the result of another `html` template, or `raw` for trusted constants).
 * Every page burrowd renders goes through it, so user-supplied text (a tunnel named `<script>`)
 * always renders as text.
 */

/** HTML that is already escaped or trusted; interpolating it does not escape it again. */
export class SafeHtml {
  readonly value: string

  constructor(value: string) {
    this.value = value
  }

  toString(): string {
    return this.value
  }
}

/** A value `html` accepts: text to escape, safe HTML, or lists of either (joined). */
export type HtmlValue =
  SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[]

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escape text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

/** Trusted markup, not escaped: only for constants written in our own source. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup)
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value
  if (value === null || value === undefined || value === false) return ''
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('')
  return escapeHtml(String(value))
}

/** Build HTML from a template; interpolated values are escaped unless they are `SafeHtml`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? ''
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '')
  return new SafeHtml(out)
}
