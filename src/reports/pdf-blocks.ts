// Measuring and drawing each layout block on a PDF page, as vectors: charts are paths and
// rectangles, text is real (selectable, searchable) text in the embedded fonts. Every block is
// measured before it is drawn, so the page flow in render-pdf.ts never lets pdfkit break a page.
import { splitFractions, trendGeometry } from './charts.ts';
import type { Block, Card, Kpi, TableCell } from './document.ts';
import {
  BOLD,
  FONT,
  line,
  lineWidth,
  type Pdf,
  paragraph,
  paragraphHeight,
  type TextStyle,
} from './pdf-text.ts';
import { COLORS, TONE_COLORS, TONE_FILLS } from './theme.ts';

export type TableBlock = Extract<Block, { kind: 'table' }>;

const BODY: TextStyle = { font: FONT, size: 9.5, color: COLORS.text };
const MUTED: TextStyle = { ...BODY, color: COLORS.muted };
const BLOCK_TITLE: TextStyle = { font: BOLD, size: 9.5, color: COLORS.ink };
const BLOCK_TITLE_HEIGHT = 17;
const EMPTY_HEIGHT = 16;
const GUTTER = 18;

function blockTitle(doc: Pdf, title: string, x: number, y: number, width: number): void {
  line(doc, title, x, y, width, BLOCK_TITLE);
}

// KPI cards ------------------------------------------------------------------------------------

const KPI_HEIGHT = 78;
const KPI_GAP = 10;

function drawKpi(doc: Pdf, item: Kpi, x: number, y: number, width: number): void {
  doc.roundedRect(x, y, width, KPI_HEIGHT, 6).fill(COLORS.panel);
  const left = x + 10;
  const inner = width - 20;
  line(doc, item.label.toUpperCase(), left, y + 9, inner, {
    font: BOLD,
    size: 7,
    color: COLORS.muted,
    spacing: 0.6,
  });
  line(doc, item.value, left, y + 20, inner, { font: BOLD, size: 19, color: COLORS.ink });
  if (item.change) {
    line(doc, item.change.text, left, y + 45, inner, {
      font: BOLD,
      size: 8.5,
      color: TONE_COLORS[item.change.tone],
    });
  }
  // The note is the report's own English: DejaVu Sans has every character of it.
  doc
    .font(FONT)
    .fontSize(6.8)
    .fillColor(COLORS.muted)
    .text(item.note, left, y + (item.change ? 57 : 47), { width: inner, height: 18, ellipsis: true });
}

// Trend line -----------------------------------------------------------------------------------

const TREND_HEIGHT = 150;
const AXIS: TextStyle = { font: FONT, size: 6.5, color: COLORS.muted };

function drawTrend(
  doc: Pdf,
  block: Extract<Block, { kind: 'trend' }>,
  x: number,
  y: number,
  width: number,
): void {
  blockTitle(doc, block.title, x, y, width);
  const top = y + BLOCK_TITLE_HEIGHT;
  const g = trendGeometry(block.points, width, TREND_HEIGHT, block.timeZone);
  if (!g) {
    line(doc, block.empty, x, top, width, MUTED);
    return;
  }
  doc.save().translate(x, top);
  doc.lineWidth(0.5).strokeColor(COLORS.rule);
  for (const t of g.yTicks) {
    doc.moveTo(g.plot.left, t.y).lineTo(g.plot.right, t.y).stroke();
    line(doc, t.label, 0, t.y - 3.5, g.plot.left - 5, AXIS, 'right');
  }
  const first = g.line[0]!;
  doc.moveTo(first.x, g.plot.bottom);
  for (const p of g.line) doc.lineTo(p.x, p.y);
  doc.lineTo(g.last.x, g.plot.bottom).closePath().fillOpacity(0.08).fill(COLORS.accent).fillOpacity(1);
  doc.moveTo(first.x, first.y);
  for (const p of g.line.slice(1)) doc.lineTo(p.x, p.y);
  doc.lineWidth(1.6).lineJoin('round').strokeColor(COLORS.accent).stroke();
  for (const p of g.line) doc.circle(p.x, p.y, 1.8).fill(COLORS.accent);
  // The latest value sits on a white tag above its point, so the line never runs through it.
  const tag: TextStyle = { font: BOLD, size: 8, color: COLORS.accent };
  const tagWidth = lineWidth(doc, g.last.label, tag) + 6;
  const tagLeft = Math.max(g.plot.left, g.last.x - tagWidth + 3);
  doc.roundedRect(tagLeft, g.last.y - 15, tagWidth, 11, 2).fill(COLORS.white);
  line(doc, g.last.label, tagLeft, g.last.y - 13.5, tagWidth, tag, 'center');
  const labelWidth = 60;
  for (const t of g.xTicks) {
    const left = t.anchor === 'start' ? t.x : t.anchor === 'end' ? t.x - labelWidth : t.x - labelWidth / 2;
    const align = t.anchor === 'start' ? 'left' : t.anchor === 'end' ? 'right' : 'center';
    line(doc, t.label, left, TREND_HEIGHT - 9, labelWidth, AXIS, align);
  }
  doc.restore();
}

// Share-of-voice bars --------------------------------------------------------------------------

const BAR_ROW = 19;

function drawBars(
  doc: Pdf,
  block: Extract<Block, { kind: 'bars' }>,
  x: number,
  y: number,
  width: number,
): void {
  blockTitle(doc, block.title, x, y, width);
  let top = y + BLOCK_TITLE_HEIGHT;
  if (block.bars.length === 0) {
    line(doc, block.empty, x, top, width, MUTED);
    return;
  }
  const labelWidth = Math.min(150, width * 0.3);
  const valueWidth = 44;
  const changeWidth = 52;
  const trackLeft = x + labelWidth + 6;
  const trackWidth = width - labelWidth - valueWidth - changeWidth - 12;
  for (const bar of block.bars) {
    const labelStyle: TextStyle = bar.highlight
      ? { font: BOLD, size: 8.5, color: COLORS.accent }
      : { font: FONT, size: 8.5, color: COLORS.text };
    line(doc, bar.label, x, top + 3, labelWidth, labelStyle);
    doc.roundedRect(trackLeft, top + 3, trackWidth, 10, 2).fill(COLORS.track);
    const length = Math.max(bar.fraction * trackWidth, 1.5);
    doc.roundedRect(trackLeft, top + 3, length, 10, 2).fill(bar.highlight ? COLORS.accent : COLORS.other);
    line(
      doc,
      bar.valueText,
      trackLeft + trackWidth,
      top + 3,
      valueWidth,
      { font: BOLD, size: 8.5, color: COLORS.ink },
      'right',
    );
    if (bar.change) {
      const style: TextStyle = { font: FONT, size: 7.5, color: TONE_COLORS[bar.change.tone] };
      line(doc, bar.change.text, x + width - changeWidth, top + 4, changeWidth, style, 'right');
    }
    top += BAR_ROW;
  }
  if (block.note) paragraph(doc, block.note, x, top + BAR_NOTE_GAP, width, BAR_NOTE);
}

const BAR_NOTE: TextStyle = { font: FONT, size: 7.5, color: COLORS.muted };
const BAR_NOTE_GAP = 3;

function barsHeight(doc: Pdf, block: Extract<Block, { kind: 'bars' }>, width: number): number {
  if (block.bars.length === 0) return BLOCK_TITLE_HEIGHT + EMPTY_HEIGHT;
  const note = block.note ? BAR_NOTE_GAP + paragraphHeight(doc, block.note, width, BAR_NOTE) : 0;
  return BLOCK_TITLE_HEIGHT + block.bars.length * BAR_ROW + note;
}

// Sentiment split ------------------------------------------------------------------------------

const LEGEND_ROW = 15;

function drawSplit(
  doc: Pdf,
  block: Extract<Block, { kind: 'split' }>,
  x: number,
  y: number,
  width: number,
): void {
  blockTitle(doc, block.title, x, y, width);
  const top = y + BLOCK_TITLE_HEIGHT + 2;
  const fractions = splitFractions(block.segments.map((s) => s.count));
  if (fractions.every((f) => f === 0)) {
    line(doc, block.empty, x, top, width, MUTED);
    return;
  }
  doc.save().roundedRect(x, top, width, 14, 3).clip();
  let left = x;
  block.segments.forEach((segment, i) => {
    const w = (fractions[i] as number) * width;
    if (w > 0) doc.rect(left, top, w, 14).fill(TONE_FILLS[segment.tone]);
    left += w;
  });
  doc.restore();
  let legendY = top + 24;
  const legendWidth = Math.min(width - 14, 150);
  for (const segment of block.segments) {
    doc.roundedRect(x, legendY + 1, 8, 8, 1.5).fill(TONE_FILLS[segment.tone]);
    line(doc, segment.label, x + 14, legendY, legendWidth, { font: FONT, size: 8.5, color: COLORS.text });
    line(
      doc,
      String(segment.count),
      x + 14,
      legendY,
      legendWidth,
      { font: BOLD, size: 8.5, color: COLORS.ink },
      'right',
    );
    legendY += LEGEND_ROW;
  }
}

function splitHeight(block: Extract<Block, { kind: 'split' }>): number {
  const empty = block.segments.every((s) => s.count === 0);
  return BLOCK_TITLE_HEIGHT + (empty ? EMPTY_HEIGHT : 2 + 24 + block.segments.length * LEGEND_ROW);
}

// Tables ---------------------------------------------------------------------------------------

const CELL_PAD_X = 5;
const CELL_PAD_Y = 4.5;
const HEADER_ROW = 20;
const HEADER: TextStyle = { font: BOLD, size: 6.8, color: COLORS.muted, spacing: 0.4 };

/** A cell as paragraphs, each with its style: one for a text cell, one per line otherwise. */
function cellParts(c: TableCell): { text: string; style: TextStyle }[] {
  if ('lines' in c) {
    return c.lines.map((l) => ({
      text: l.text,
      style: { font: FONT, size: 8.5, color: TONE_COLORS[l.tone] },
    }));
  }
  const color = c.tone ? TONE_COLORS[c.tone] : COLORS.text;
  return [{ text: c.text || ' ', style: { font: c.strong ? BOLD : FONT, size: 8.5, color } }];
}

const CELL_LINE_GAP = 2;

// A cell's text shows at most this many lines (a prompt runs to 2,000 characters).
const CELL_LINES = 6;

function cellHeight(doc: Pdf, c: TableCell, width: number): number {
  const parts = cellParts(c);
  const gaps = (parts.length - 1) * CELL_LINE_GAP;
  return parts.reduce((sum, p) => sum + paragraphHeight(doc, p.text, width, p.style, CELL_LINES), gaps);
}

function columnWidths(block: TableBlock, width: number): number[] {
  const total = block.columns.reduce((sum, c) => sum + c.weight, 0);
  return block.columns.map((c) => (c.weight / total) * width);
}

export function tableHeaderHeight(block: TableBlock): number {
  return (block.title ? BLOCK_TITLE_HEIGHT : 0) + HEADER_ROW;
}

export function tableRowHeight(doc: Pdf, block: TableBlock, row: TableCell[], width: number): number {
  const widths = columnWidths(block, width);
  let tallest = 0;
  row.forEach((c, i) => {
    tallest = Math.max(tallest, cellHeight(doc, c, (widths[i] ?? 0) - 2 * CELL_PAD_X));
  });
  return tallest + 2 * CELL_PAD_Y;
}

/** The table's title and header row; returns where the first row goes. */
export function drawTableHeader(
  doc: Pdf,
  block: TableBlock,
  x: number,
  y: number,
  width: number,
  title: string,
) {
  let top = y;
  if (title) {
    blockTitle(doc, title, x, top, width);
    top += BLOCK_TITLE_HEIGHT;
  }
  const widths = columnWidths(block, width);
  let left = x;
  block.columns.forEach((column, i) => {
    const w = (widths[i] ?? 0) - 2 * CELL_PAD_X;
    const label = column.label.toUpperCase();
    // A narrow column gets a smaller header rather than a clipped one.
    let style = HEADER;
    while (style.size > 5 && lineWidth(doc, label, style) > w) style = { ...style, size: style.size - 0.2 };
    line(doc, label, left + CELL_PAD_X, top + 5 + (HEADER.size - style.size) / 2, w, style, column.align);
    left += widths[i] ?? 0;
  });
  doc
    .moveTo(x, top + HEADER_ROW - 2)
    .lineTo(x + width, top + HEADER_ROW - 2)
    .lineWidth(0.8)
    .strokeColor(COLORS.rule)
    .stroke();
  return top + HEADER_ROW;
}

/** One row (striped when `index` is odd); returns where the next row goes. */
export function drawTableRow(
  doc: Pdf,
  block: TableBlock,
  row: TableCell[],
  index: number,
  x: number,
  y: number,
  width: number,
): number {
  const height = tableRowHeight(doc, block, row, width);
  if (index % 2 === 1) doc.rect(x, y, width, height).fill(COLORS.stripe);
  const widths = columnWidths(block, width);
  let left = x;
  row.forEach((c, i) => {
    const w = (widths[i] ?? 0) - 2 * CELL_PAD_X;
    let top = y + CELL_PAD_Y;
    for (const part of cellParts(c)) {
      paragraph(doc, part.text, left + CELL_PAD_X, top, w, part.style, block.columns[i]?.align, CELL_LINES);
      top += paragraphHeight(doc, part.text, w, part.style, CELL_LINES) + CELL_LINE_GAP;
    }
    left += widths[i] ?? 0;
  });
  doc
    .moveTo(x, y + height)
    .lineTo(x + width, y + height)
    .lineWidth(0.4)
    .strokeColor(COLORS.rule)
    .stroke();
  return y + height;
}

function tableHeight(doc: Pdf, block: TableBlock, width: number): number {
  if (block.rows.length === 0) return (block.title ? BLOCK_TITLE_HEIGHT : 0) + EMPTY_HEIGHT;
  return (
    tableHeaderHeight(block) +
    block.rows.reduce((sum, row) => sum + tableRowHeight(doc, block, row, width), 0)
  );
}

function drawTable(doc: Pdf, block: TableBlock, x: number, y: number, width: number): void {
  if (block.rows.length === 0) {
    if (block.title) blockTitle(doc, block.title, x, y, width);
    line(doc, block.empty, x, y + (block.title ? BLOCK_TITLE_HEIGHT : 0), width, MUTED);
    return;
  }
  let top = drawTableHeader(doc, block, x, y, width, block.title);
  block.rows.forEach((row, i) => {
    top = drawTableRow(doc, block, row, i, x, top, width);
  });
}

// Recommendation cards -------------------------------------------------------------------------

const CARD_PAD = 10;
const CARD_LABEL_WIDTH = 78;
const CARD_TITLE: TextStyle = { font: BOLD, size: 10, color: COLORS.ink };
const CARD_TEXT: TextStyle = { font: FONT, size: 8.5, color: COLORS.text };
const CARD_TAG: TextStyle = { font: BOLD, size: 6.8, color: COLORS.muted, spacing: 0.4 };
// A card fits on a page whatever it quotes: its title and each entry are bounded.
const CARD_TITLE_LINES = 4;
const CARD_TEXT_LINES = 6;

function cardLayout(doc: Pdf, card: Card, width: number) {
  const inner = width - 2 * CARD_PAD - 4;
  const tagWidth = Math.min(150, lineWidth(doc, card.tag.toUpperCase(), CARD_TAG) + 4);
  const titleWidth = inner - tagWidth - 10;
  const titleHeight = paragraphHeight(doc, card.title, titleWidth, CARD_TITLE, CARD_TITLE_LINES);
  const textWidth = inner - CARD_LABEL_WIDTH;
  const lineHeights = card.lines.map(
    (l) => paragraphHeight(doc, l.text, textWidth, CARD_TEXT, CARD_TEXT_LINES) + 3,
  );
  const height = CARD_PAD + titleHeight + 6 + lineHeights.reduce((a, b) => a + b, 0) + CARD_PAD - 3;
  return { tagWidth, titleWidth, titleHeight, textWidth, lineHeights, height };
}

function drawCard(doc: Pdf, card: Card, x: number, y: number, width: number): void {
  const l = cardLayout(doc, card, width);
  doc.roundedRect(x, y, width, l.height, 5).fill(COLORS.stripe);
  doc.roundedRect(x, y, width, l.height, 5).lineWidth(0.6).strokeColor(COLORS.rule).stroke();
  doc.rect(x, y, 3.5, l.height).fill(TONE_FILLS[card.tagTone]);
  const left = x + CARD_PAD + 4;
  paragraph(doc, card.title, left, y + CARD_PAD, l.titleWidth, CARD_TITLE, 'left', CARD_TITLE_LINES);
  const tagStyle = { ...CARD_TAG, color: TONE_COLORS[card.tagTone] };
  line(
    doc,
    card.tag.toUpperCase(),
    x + width - CARD_PAD - l.tagWidth,
    y + CARD_PAD + 2,
    l.tagWidth,
    tagStyle,
    'right',
  );
  let top = y + CARD_PAD + l.titleHeight + 6;
  card.lines.forEach((entry, i) => {
    line(doc, entry.label, left, top + 0.8, CARD_LABEL_WIDTH - 6, {
      font: BOLD,
      size: 7.5,
      color: COLORS.muted,
    });
    paragraph(doc, entry.text, left + CARD_LABEL_WIDTH, top, l.textWidth, CARD_TEXT, 'left', CARD_TEXT_LINES);
    top += l.lineHeights[i] ?? 0;
  });
}

// Text -----------------------------------------------------------------------------------------

const BULLET_INDENT = 14;
const BULLET_GAP = 5;

function drawBullets(doc: Pdf, items: readonly string[], x: number, y: number, width: number): void {
  let top = y;
  for (const item of items) {
    doc.circle(x + 4, top + 5.5, 2).fill(COLORS.accent);
    paragraph(doc, item, x + BULLET_INDENT, top, width - BULLET_INDENT, BODY);
    top += paragraphHeight(doc, item, width - BULLET_INDENT, BODY) + BULLET_GAP;
  }
}

// Any block ------------------------------------------------------------------------------------

/** Vertical space between consecutive blocks. */
export const BLOCK_GAP = 14;

function stackHeight(doc: Pdf, blocks: readonly Block[], width: number): number {
  return blocks.reduce((sum, b, i) => sum + blockHeight(doc, b, width) + (i > 0 ? BLOCK_GAP : 0), 0);
}

export function blockHeight(doc: Pdf, block: Block, width: number): number {
  switch (block.kind) {
    case 'kpis':
      return KPI_HEIGHT;
    case 'paragraph':
      return paragraphHeight(doc, block.text, width, BODY);
    case 'bullets':
      return block.items.reduce(
        (sum, item) => sum + paragraphHeight(doc, item, width - BULLET_INDENT, BODY) + BULLET_GAP,
        0,
      );
    case 'trend':
      return BLOCK_TITLE_HEIGHT + (block.points.length === 0 ? EMPTY_HEIGHT : TREND_HEIGHT);
    case 'bars':
      return barsHeight(doc, block, width);
    case 'split':
      return splitHeight(block);
    case 'table':
      return tableHeight(doc, block, width);
    case 'card':
      return cardLayout(doc, block.card, width).height;
    case 'columns': {
      const w = (width - GUTTER) / 2;
      return Math.max(...block.columns.map((col) => stackHeight(doc, col, w)));
    }
  }
}

export function drawBlock(doc: Pdf, block: Block, x: number, y: number, width: number): void {
  switch (block.kind) {
    case 'kpis': {
      const w = (width - KPI_GAP * (block.items.length - 1)) / block.items.length;
      block.items.forEach((item, i) => {
        drawKpi(doc, item, x + i * (w + KPI_GAP), y, w);
      });
      break;
    }
    case 'paragraph':
      paragraph(doc, block.text, x, y, width, block.muted ? MUTED : BODY);
      break;
    case 'bullets':
      drawBullets(doc, block.items, x, y, width);
      break;
    case 'trend':
      drawTrend(doc, block, x, y, width);
      break;
    case 'bars':
      drawBars(doc, block, x, y, width);
      break;
    case 'split':
      drawSplit(doc, block, x, y, width);
      break;
    case 'table':
      drawTable(doc, block, x, y, width);
      break;
    case 'card':
      drawCard(doc, block.card, x, y, width);
      break;
    case 'columns': {
      const w = (width - GUTTER) / 2;
      block.columns.forEach((col, i) => {
        let top = y;
        for (const b of col) {
          drawBlock(doc, b, x + i * (w + GUTTER), top, w);
          top += blockHeight(doc, b, w) + BLOCK_GAP;
        }
      });
      break;
    }
  }
}
