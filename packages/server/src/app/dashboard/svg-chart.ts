/**
 * Charts for the Metrics tab, drawn on the server as SVG with presentation attributes only (the
 * CSP allows no inline style or script): a stacked bar per period of calls (answered, errors,
 * refused), and a bar per method for latency percentiles.
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

const WIDTH = 880
const HEIGHT = 180
const PAD = { left: 44, right: 8, top: 10, bottom: 22 }

/** A stacked bar chart of `bars` (left to right), with a y-axis of counts. */
export function stackedBarChart(id: string, title: string, bars: readonly StackedBar[]): SafeHtml {
  const totals = bars.map((b) => b.parts.reduce((s, p) => s + p.value, 0))
  const max = Math.max(1, ...totals)
  const plotW = WIDTH - PAD.left - PAD.right
  const plotH = HEIGHT - PAD.top - PAD.bottom
  const step = bars.length > 0 ? plotW / bars.length : plotW
  const barW = Math.max(1, step * 0.8)
  const rects = bars.flatMap((bar, i) => {
    let y = PAD.top + plotH
    return bar.parts
      .filter((p) => p.value > 0)
      .map((p) => {
        const h = (p.value / max) * plotH
        y -= h
        return html`<rect x="${(PAD.left + i * step).toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${p.color}"><title>${bar.label}: ${p.value} ${p.name}</title></rect>`
      })
  })
  const first = bars[0]?.label ?? ''
  const last = bars[bars.length - 1]?.label ?? ''
  return html`<svg id="${id}" class="chart" role="img" aria-label="${title}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" xmlns="http://www.w3.org/2000/svg">
<title>${title}</title>
<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${WIDTH - PAD.right}" y2="${PAD.top + plotH}" stroke="#b8c0c8" />
<text x="${PAD.left - 6}" y="${PAD.top + 10}" text-anchor="end" font-size="11" fill="#5b6470">${max}</text>
<text x="${PAD.left - 6}" y="${PAD.top + plotH}" text-anchor="end" font-size="11" fill="#5b6470">0</text>
${rects}
<text x="${PAD.left}" y="${HEIGHT - 6}" font-size="11" fill="#5b6470">${first}</text>
<text x="${WIDTH - PAD.right}" y="${HEIGHT - 6}" text-anchor="end" font-size="11" fill="#5b6470">${last}</text>
</svg>`
}

/** Longest row label drawn in full; longer ones end in "…" (the whole name is in its tooltip). */
const MAX_LABEL_CHARS = 110
/** Room right of the bars for a row's "p50 / p95 / p99 ms". */
const VALUES_W = 190

/**
 * Horizontal bars of p50, p95 and p99 per row (milliseconds): each row's label on a line of its
 * own above its bars, which run the width of the chart, and its figures right of them.
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
  const rowH = 42
  const plotW = WIDTH - VALUES_W
  const height = Math.max(1, rows.length) * rowH + 8
  const max = Math.max(1, ...rows.map((r) => r.p99 ?? 0))
  const bars = rows.map((r, i) => {
    const y = 4 + i * rowH
    const barY = y + 18
    const bar = (value: number | null, color: string, h: number, dy: number) =>
      value === null
        ? ''
        : html`<rect x="0" y="${barY + dy}" width="${Math.max(1, (value / max) * plotW).toFixed(1)}" height="${h}" fill="${color}"><title>${r.label}: ${value} ms</title></rect>`
    const label =
      r.label.length > MAX_LABEL_CHARS ? `${r.label.slice(0, MAX_LABEL_CHARS - 1)}…` : r.label
    return html`<text x="0" y="${y + 12}" font-size="12" fill="#1b1f24">${label}<title>${r.label}</title></text>
${bar(r.p99, '#f0c9a8', 18, 0)}${bar(r.p95, '#d9915a', 12, 3)}${bar(r.p50, '#7a3e12', 6, 6)}
<text x="${WIDTH - 2}" y="${barY + 13}" text-anchor="end" font-size="11" fill="#5b6470">${chartMs(r.p50)} / ${chartMs(r.p95)} / ${chartMs(r.p99)} ms</text>`
  })
  return html`<svg id="${id}" class="chart" role="img" aria-label="Latency p50, p95 and p99 per method" viewBox="0 0 ${WIDTH} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">
<title>Latency p50, p95 and p99 per method</title>
${bars}
</svg>`
}

/**
 * A latency in the chart: whole milliseconds from 10 up, one decimal below. The figures are the
 * upper bounds of buckets 25% wide, so more digits would claim a precision they do not have.
 */
export function chartMs(value: number | null): string {
  if (value === null) return '–'
  return value >= 10 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1)
}
