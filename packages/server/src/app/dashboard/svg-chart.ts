/**
 * Charts for the Metrics tab, drawn on the server (the CSP allows no inline style or script): a
 * stacked bar per period of calls (answered, errors, refused), and a bar per method for latency
 * percentiles. The bars are SVG stretched to the width they get (`preserveAspectRatio="none"`);
 * every word and figure is HTML text beside them, so a phone's narrow chart keeps the type size
 * of the page instead of shrinking it with the drawing (it was 4 px high at 390 px wide).
 */
import { html, type SafeHtml } from '../../http/html.js'

/** One stacked bar. */
export interface StackedBar {
  readonly label: string
  readonly parts: readonly {
    readonly name: string
    readonly value: number
    readonly color: string
  }[]
}

/** The drawing's own units; the page stretches them to the chart's width and CSS height. */
const WIDTH = 880
const HEIGHT = 150

/**
 * A stacked bar chart of `bars` (left to right): the SVG is `id`, the highest total and 0 are
 * written left of it, the first and last periods' labels under it.
 */
export function stackedBarChart(id: string, title: string, bars: readonly StackedBar[]): SafeHtml {
  const totals = bars.map((b) => b.parts.reduce((s, p) => s + p.value, 0))
  const max = Math.max(1, ...totals)
  const step = bars.length > 0 ? WIDTH / bars.length : WIDTH
  const barW = Math.max(1, step * 0.8)
  const rects = bars.flatMap((bar, i) => {
    let y = HEIGHT
    return bar.parts
      .filter((p) => p.value > 0)
      .map((p) => {
        const h = (p.value / max) * HEIGHT
        y -= h
        return html`<rect x="${(i * step).toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${p.color}"><title>${bar.label}: ${p.value} ${p.name}</title></rect>`
      })
  })
  const first = bars[0]?.label ?? ''
  const last = bars[bars.length - 1]?.label ?? ''
  return html`<div class="chart-box" id="${id}-box">
<div class="chart-y"><span data-axis="max">${max}</span><span data-axis="zero">0</span></div>
<svg id="${id}" class="bars" role="img" aria-label="${title}" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">
<title>${title}</title>
<line x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}" stroke="#b8c0c8" stroke-width="2" vector-effect="non-scaling-stroke" />
${rects}
</svg>
<div class="chart-x"><span data-axis="first">${first}</span><span data-axis="last">${last}</span></div>
</div>`
}

/** Longest row label drawn in full; longer ones end in "…" (the whole name is in its tooltip). */
const MAX_LABEL_CHARS = 110

/**
 * Horizontal bars of p50, p95 and p99 per row (milliseconds), as a list: each row's label on a
 * line of its own above its bars, which take the width its figures leave them.
 */
export function latencyChart(
  id: string,
  rows: readonly {
    readonly label: string
    readonly p50: number | null
    readonly p95: number | null
    readonly p99: number | null
  }[],
): SafeHtml {
  const max = Math.max(1, ...rows.map((r) => r.p99 ?? 0))
  const items = rows.map((r) => {
    const bar = (value: number | null, color: string, h: number, y: number) =>
      value === null
        ? ''
        : html`<rect x="0" y="${y}" width="${Math.max(1, (value / max) * WIDTH).toFixed(1)}" height="${h}" fill="${color}"><title>${r.label}: ${value} ms</title></rect>`
    const label =
      r.label.length > MAX_LABEL_CHARS ? `${r.label.slice(0, MAX_LABEL_CHARS - 1)}…` : r.label
    return html`<li>
<span class="latency-label" title="${r.label}">${label}</span>
<span class="latency-row"><svg class="latency-bars" viewBox="0 0 ${WIDTH} 18" preserveAspectRatio="none" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">${bar(r.p99, '#f0c9a8', 18, 0)}${bar(r.p95, '#d9915a', 12, 3)}${bar(r.p50, '#7a3e12', 6, 6)}</svg>
<span class="latency-figures">${chartMs(r.p50)} / ${chartMs(r.p95)} / ${chartMs(r.p99)} ms</span></span>
</li>`
  })
  return html`<ul id="${id}" class="latency-chart" aria-label="Latency p50, p95 and p99 per method">
${items}
</ul>`
}

/**
 * A latency in the chart: whole milliseconds from 10 up, one decimal below. The figures are the
 * upper bounds of buckets 25% wide, so more digits would claim a precision they do not have.
 */
export function chartMs(value: number | null): string {
  if (value === null) return '–'
  return value >= 10 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1)
}
