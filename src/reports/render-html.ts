// A report as one self-contained HTML page: inline CSS and inline SVG charts, nothing fetched from
// anywhere (no fonts, images, scripts or styles by URL), so it opens offline, survives being
// forwarded as an attachment, and prints cleanly.
import { splitFractions, trendGeometry } from './charts.ts';
import type { Block, Card, Change, Kpi, ReportDocument, Section, TableCell } from './document.ts';
import { COLORS, TONE_COLORS, TONE_FILLS } from './theme.ts';

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const n = (value: number) => Number(value.toFixed(2));

function change(c: Change | null): string {
  return c ? `<span class="change" style="color:${TONE_COLORS[c.tone]}">${esc(c.text)}</span>` : '';
}

function kpi(item: Kpi): string {
  return `<div class="kpi"><div class="kpi-label">${esc(item.label)}</div>
<div class="kpi-value">${esc(item.value)}</div><div class="kpi-change">${change(item.change)}</div>
<div class="kpi-note">${esc(item.note)}</div></div>`;
}

const TREND_WIDTH = 520;
const TREND_HEIGHT = 190;

function trend(block: Extract<Block, { kind: 'trend' }>): string {
  const g = trendGeometry(block.points, TREND_WIDTH, TREND_HEIGHT, block.timeZone);
  if (!g) return `<h3>${esc(block.title)}</h3><p class="muted">${esc(block.empty)}</p>`;
  const path = g.line.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(p.x)} ${n(p.y)}`).join(' ');
  const first = g.line[0]!;
  const area = `${path} L${n(g.last.x)} ${n(g.plot.bottom)} L${n(first.x)} ${n(g.plot.bottom)} Z`;
  const grid = g.yTicks
    .map(
      (t) =>
        `<line x1="${g.plot.left}" x2="${g.plot.right}" y1="${n(t.y)}" y2="${n(t.y)}" stroke="${COLORS.rule}"/>` +
        `<text x="${g.plot.left - 6}" y="${n(t.y + 3)}" text-anchor="end" class="axis">${t.label}</text>`,
    )
    .join('');
  const xLabels = g.xTicks
    .map(
      (t) =>
        `<text x="${n(t.x)}" y="${TREND_HEIGHT - 2}" text-anchor="${t.anchor}" class="axis">${esc(t.label)}</text>`,
    )
    .join('');
  const dots = g.line
    .map((p) => `<circle cx="${n(p.x)}" cy="${n(p.y)}" r="2.5" fill="${COLORS.accent}"/>`)
    .join('');
  return `<h3>${esc(block.title)}</h3>
<svg viewBox="0 0 ${TREND_WIDTH} ${TREND_HEIGHT}" role="img" aria-label="${esc(block.title)}">
${grid}<path d="${area}" fill="${COLORS.accent}" fill-opacity="0.08"/>
<path d="${path}" fill="none" stroke="${COLORS.accent}" stroke-width="2" stroke-linejoin="round"/>${dots}
<text x="${n(g.last.x)}" y="${n(g.last.y - 7)}" text-anchor="end" class="point" paint-order="stroke" stroke="${COLORS.white}" stroke-width="4">${esc(g.last.label)}</text>${xLabels}
</svg>`;
}

function bars(block: Extract<Block, { kind: 'bars' }>): string {
  if (block.bars.length === 0) return `<h3>${esc(block.title)}</h3><p class="muted">${esc(block.empty)}</p>`;
  const rows = block.bars
    .map(
      (
        bar,
      ) => `<div class="bar-row${bar.highlight ? ' own' : ''}"><div class="bar-label">${esc(bar.label)}</div>
<div class="bar-track"><svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
<rect x="0" y="0" width="${n(Math.max(bar.fraction * 100, 0.5))}" height="10" rx="1.5" fill="${bar.highlight ? COLORS.accent : COLORS.other}"/></svg></div>
<div class="bar-value">${esc(bar.valueText)}</div><div class="bar-change">${change(bar.change)}</div></div>`,
    )
    .join('\n');
  const note = block.note ? `<p class="muted">${esc(block.note)}</p>` : '';
  return `<h3>${esc(block.title)}</h3><div class="bars">${rows}</div>${note}`;
}

function split(block: Extract<Block, { kind: 'split' }>): string {
  const fractions = splitFractions(block.segments.map((s) => s.count));
  const legend = block.segments
    .map(
      (s) =>
        `<li><span class="swatch" style="background:${TONE_FILLS[s.tone]}"></span>${esc(s.label)} <b>${s.count}</b></li>`,
    )
    .join('');
  if (fractions.every((x) => x === 0)) {
    return `<h3>${esc(block.title)}</h3><p class="muted">${esc(block.empty)}</p>`;
  }
  let x = 0;
  const rects = block.segments
    .map((s, i) => {
      const width = (fractions[i] as number) * 100;
      const rect = `<rect x="${n(x)}" y="0" width="${n(width)}" height="10" fill="${TONE_FILLS[s.tone]}"/>`;
      x += width;
      return rect;
    })
    .join('');
  return `<h3>${esc(block.title)}</h3>
<svg class="split" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${esc(block.title)}">${rects}</svg>
<ul class="legend">${legend}</ul>`;
}

function cell(c: TableCell, align: string): string {
  if ('lines' in c) {
    const lines = c.lines
      .map((l) => `<div style="color:${TONE_COLORS[l.tone]}">${esc(l.text)}</div>`)
      .join('');
    return `<td style="text-align:${align}">${lines}</td>`;
  }
  const style = [`text-align:${align}`];
  if (c.tone) style.push(`color:${TONE_COLORS[c.tone]}`);
  if (c.strong) style.push('font-weight:600');
  return `<td style="${style.join(';')}">${esc(c.text)}</td>`;
}

function table(block: Extract<Block, { kind: 'table' }>): string {
  const title = block.title ? `<h3>${esc(block.title)}</h3>` : '';
  if (block.rows.length === 0) return `${title}<p class="muted">${esc(block.empty)}</p>`;
  const total = block.columns.reduce((sum, c) => sum + c.weight, 0);
  const cols = block.columns.map((c) => `<col style="width:${n((c.weight / total) * 100)}%">`).join('');
  const head = block.columns.map((c) => `<th style="text-align:${c.align}">${esc(c.label)}</th>`).join('');
  const body = block.rows
    .map((row) => `<tr>${row.map((c, i) => cell(c, block.columns[i]?.align ?? 'left')).join('')}</tr>`)
    .join('\n');
  return `${title}<table><colgroup>${cols}</colgroup><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function card(c: Card): string {
  const lines = c.lines.map((l) => `<dt>${esc(l.label)}</dt><dd>${esc(l.text)}</dd>`).join('');
  return `<article class="card" style="border-left-color:${TONE_FILLS[c.tagTone]}">
<header><h4>${esc(c.title)}</h4><span class="tag" style="color:${TONE_COLORS[c.tagTone]}">${esc(c.tag)}</span></header>
<dl>${lines}</dl></article>`;
}

function block(b: Block): string {
  switch (b.kind) {
    case 'kpis':
      return `<div class="kpis">${b.items.map(kpi).join('')}</div>`;
    case 'paragraph':
      return `<p${b.muted ? ' class="muted"' : ''}>${esc(b.text)}</p>`;
    case 'bullets':
      return `<ul class="bullets">${b.items.map((item) => `<li>${esc(item)}</li>`).join('')}</ul>`;
    case 'trend':
      return `<figure>${trend(b)}</figure>`;
    case 'bars':
      return `<figure>${bars(b)}</figure>`;
    case 'split':
      return `<figure>${split(b)}</figure>`;
    case 'table':
      return `<figure>${table(b)}</figure>`;
    case 'card':
      return card(b.card);
    case 'columns':
      return `<div class="columns">${b.columns.map((col) => `<div>${col.map(block).join('\n')}</div>`).join('')}</div>`;
  }
}

function section(s: Section): string {
  return `<section${s.newPage ? ' class="new-page"' : ''}><h2>${esc(s.title)}</h2>\n${s.blocks.map(block).join('\n')}\n</section>`;
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:${COLORS.panel};color:${COLORS.text};font:14px/1.5 "DejaVu Sans",system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:880px;margin:0 auto;background:${COLORS.white};padding:0 0 32px}
.band{background:${COLORS.band};color:${COLORS.white};padding:28px 40px 24px}
.band .eyebrow{color:${COLORS.bandText};font-size:11px;letter-spacing:.12em;text-transform:uppercase}
.band h1{margin:6px 0 2px;font-size:28px;line-height:1.2}
.band .brand{font-size:18px;font-weight:600}
.band .meta{color:${COLORS.bandText};font-size:12px;margin-top:8px;display:flex;justify-content:space-between;gap:16px;flex-wrap:wrap}
section{padding:8px 40px 0}
h2{font-size:18px;color:${COLORS.ink};margin:24px 0 12px;padding-left:10px;border-left:4px solid ${COLORS.accent}}
h3{font-size:13px;color:${COLORS.ink};margin:0 0 8px}
figure{margin:0 0 18px}
svg{display:block;width:100%;height:auto}
svg text{font-family:inherit}
svg .axis{font-size:12px;fill:${COLORS.muted}}
svg .point{font-size:14px;font-weight:700;fill:${COLORS.accent}}
.muted{color:${COLORS.muted}}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:0 0 20px}
.kpi{background:${COLORS.panel};border-radius:8px;padding:12px 14px}
.kpi-label{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:${COLORS.muted}}
.kpi-value{font-size:26px;font-weight:700;color:${COLORS.ink};line-height:1.25}
.kpi-change{font-size:13px;font-weight:600;min-height:1.2em}
.kpi-note{font-size:11px;color:${COLORS.muted}}
.columns{display:grid;grid-template-columns:1fr 1fr;gap:24px}
.bars{display:grid;gap:6px}
.bar-row{display:grid;grid-template-columns:30% 1fr 64px 84px;align-items:center;gap:8px;font-size:13px}
.bar-row.own .bar-label{font-weight:700;color:${COLORS.accent}}
.bar-track{background:${COLORS.track};border-radius:2px}
.bar-track svg{height:12px}
.bar-value{text-align:right;font-weight:600}
.bar-change{text-align:right;font-size:12px}
.split{height:16px;border-radius:3px;overflow:hidden}
.legend{list-style:none;padding:0;margin:8px 0 0;display:flex;gap:18px;font-size:13px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
table{width:100%;border-collapse:collapse;font-size:13px;table-layout:fixed}
th{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:${COLORS.muted};border-bottom:1px solid ${COLORS.rule};padding:6px 8px}
td{padding:6px 8px;border-bottom:1px solid ${COLORS.rule};vertical-align:top;overflow-wrap:anywhere}
tbody tr:nth-child(even){background:${COLORS.stripe}}
.bullets{padding-left:20px;margin:0 0 16px}
.bullets li{margin:0 0 6px}
.card{border:1px solid ${COLORS.rule};border-left:4px solid;border-radius:6px;padding:12px 16px;margin:0 0 12px;break-inside:avoid}
.card header{display:flex;justify-content:space-between;gap:12px;align-items:baseline}
.card h4{margin:0 0 6px;font-size:14px;color:${COLORS.ink}}
.card .tag{font-size:11px;text-transform:uppercase;letter-spacing:.05em;white-space:nowrap}
.card dl{display:grid;grid-template-columns:120px 1fr;gap:4px 12px;margin:0;font-size:13px}
.card dt{color:${COLORS.muted};font-weight:600}
.card dd{margin:0}
footer{padding:24px 40px 0;font-size:11px;color:${COLORS.muted}}
@media screen and (max-width:700px){.columns{grid-template-columns:1fr}.band,section,footer{padding-left:16px;padding-right:16px}}
@media print{
  @page{size:A4;margin:14mm 12mm}
  body{background:none;font-size:11px}
  main{max-width:none;padding:0}
  .kpis{grid-template-columns:repeat(4,1fr)}
  .band{-webkit-print-color-adjust:exact;print-color-adjust:exact}
  section.new-page{break-before:page}
  figure,.kpis,.card,tr{break-inside:avoid}
  h2,h3{break-after:avoid}
  .kpi,.bar-track,.split,.card,tbody tr{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
`;

export function renderHtml(doc: ReportDocument): Buffer {
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`${doc.title}: ${doc.brandName}`)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header class="band">
<div class="eyebrow">Sightline · AI visibility report</div>
<h1>${esc(doc.title)}</h1>
<div class="brand">${esc(doc.brandName)}</div>
<div class="meta"><span>${esc(doc.windowLabel)}</span><span>${esc([doc.preparedFor, doc.generatedLabel].filter(Boolean).join(' · '))}</span></div>
</header>
${doc.sections.map(section).join('\n')}
<footer>${esc(`${doc.title} · ${doc.brandName} · ${doc.windowLabel}. Figures are those the Sightline API serves for the same brand, window and moment.`)}</footer>
</main>
</body>
</html>
`;
  return Buffer.from(html, 'utf8');
}
