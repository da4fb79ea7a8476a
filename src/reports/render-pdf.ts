// A report as an A4 PDF (pdfkit, pure JavaScript: no browser). Fonts are embedded, charts are
// vectors, and every page carries the brand, the window and "page N of M". Blocks never break
// across pages except tables, which continue on the next page under a repeated header.
import PDFDocument from 'pdfkit';
import type { Block, ReportDocument, Section } from './document.ts';
import type { ReportFonts } from './fonts.ts';
import {
  BLOCK_GAP,
  blockHeight,
  drawBlock,
  drawTableHeader,
  drawTableRow,
  type TableBlock,
  tableHeaderHeight,
  tableRowHeight,
} from './pdf-blocks.ts';
import { BOLD, FONT, line, missingGlyphs, type Pdf, registerFonts } from './pdf-text.ts';
import { COLORS } from './theme.ts';

const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const MARGIN_X = 48;
const WIDTH = PAGE_WIDTH - 2 * MARGIN_X;
const BAND_HEIGHT = 132;
const CONTENT_TOP = 64;
const CONTENT_BOTTOM = PAGE_HEIGHT - 50;
const SECTION_TITLE_HEIGHT = 30;
const SECTION_GAP = 10;
const MIN_TABLE_ROWS = 3;

function drawBand(pdf: Pdf, doc: ReportDocument): void {
  pdf.rect(0, 0, PAGE_WIDTH, BAND_HEIGHT).fill(COLORS.band);
  pdf.rect(0, BAND_HEIGHT - 4, PAGE_WIDTH, 4).fill(COLORS.accent);
  const light = { font: FONT, size: 8.5, color: COLORS.bandText } as const;
  line(pdf, 'SIGHTLINE · AI VISIBILITY REPORT', MARGIN_X, 30, WIDTH, {
    ...light,
    font: BOLD,
    size: 7.5,
    spacing: 1.2,
  });
  line(pdf, doc.title, MARGIN_X, 44, WIDTH, { font: BOLD, size: 22, color: COLORS.white });
  line(pdf, doc.brandName, MARGIN_X, 73, WIDTH, { font: BOLD, size: 13, color: COLORS.white });
  line(pdf, doc.windowLabel, MARGIN_X, 96, WIDTH * 0.6, light);
  line(pdf, doc.generatedLabel, MARGIN_X, 109, WIDTH * 0.6, light);
  if (doc.preparedFor) line(pdf, doc.preparedFor, MARGIN_X + WIDTH * 0.6, 96, WIDTH * 0.4, light, 'right');
}

function drawRunningHeader(pdf: Pdf, doc: ReportDocument): void {
  line(pdf, doc.brandName, MARGIN_X, 30, WIDTH * 0.45, { font: BOLD, size: 8, color: COLORS.ink });
  line(
    pdf,
    doc.windowLabel,
    MARGIN_X + WIDTH * 0.45,
    30,
    WIDTH * 0.55,
    { font: FONT, size: 8, color: COLORS.muted },
    'right',
  );
  pdf
    .moveTo(MARGIN_X, 44)
    .lineTo(MARGIN_X + WIDTH, 44)
    .lineWidth(0.6)
    .strokeColor(COLORS.rule)
    .stroke();
}

function drawFooter(pdf: Pdf, doc: ReportDocument, page: number, pages: number): void {
  const y = PAGE_HEIGHT - 34;
  const style = { font: FONT, size: 7.5, color: COLORS.muted } as const;
  pdf
    .moveTo(MARGIN_X, y - 8)
    .lineTo(MARGIN_X + WIDTH, y - 8)
    .lineWidth(0.6)
    .strokeColor(COLORS.rule)
    .stroke();
  line(pdf, `Sightline · ${doc.title}`, MARGIN_X, y, WIDTH * 0.7, style);
  line(pdf, `Page ${page} of ${pages}`, MARGIN_X + WIDTH * 0.7, y, WIDTH * 0.3, style, 'right');
}

/** Lays blocks top to bottom, opening a page whenever the next one would not fit. */
class Flow {
  y = BAND_HEIGHT + 18;
  private readonly pdf: Pdf;

  constructor(pdf: Pdf) {
    this.pdf = pdf;
  }

  private newPage(): void {
    this.pdf.addPage({ size: 'A4', margin: 0 });
    this.y = CONTENT_TOP;
  }

  private atTop(): boolean {
    return this.y === CONTENT_TOP;
  }

  private ensure(height: number): void {
    if (this.y + height > CONTENT_BOTTOM && !this.atTop()) this.newPage();
  }

  /** A table's header with its first rows: a table never starts with a lone row at a page's foot. */
  private tableLead(block: TableBlock): number {
    const rows = block.rows.slice(0, MIN_TABLE_ROWS);
    return (
      tableHeaderHeight(block) +
      rows.reduce((sum, row) => sum + tableRowHeight(this.pdf, block, row, WIDTH), 0)
    );
  }

  /** The part of a block that must share a page with the section title above it. */
  private leadHeight(block: Block | undefined): number {
    if (!block) return 0;
    if (block.kind === 'table' && block.rows.length > 0) return this.tableLead(block);
    return blockHeight(this.pdf, block, WIDTH);
  }

  section(section: Section): void {
    if (section.newPage && !this.atTop()) this.newPage();
    else if (!this.atTop()) this.y += SECTION_GAP;
    this.ensure(SECTION_TITLE_HEIGHT + this.leadHeight(section.blocks[0]));
    this.pdf.rect(MARGIN_X, this.y + 2, 3, 15).fill(COLORS.accent);
    line(this.pdf, section.title, MARGIN_X + 10, this.y, WIDTH - 10, {
      font: BOLD,
      size: 13,
      color: COLORS.ink,
    });
    this.y += SECTION_TITLE_HEIGHT;
    for (const block of section.blocks) {
      if (block.kind === 'table' && block.rows.length > 0) this.table(block);
      else this.block(block);
    }
  }

  private block(block: Block): void {
    const height = blockHeight(this.pdf, block, WIDTH);
    this.ensure(height);
    drawBlock(this.pdf, block, MARGIN_X, this.y, WIDTH);
    this.y += height + BLOCK_GAP;
  }

  private table(block: TableBlock): void {
    this.ensure(this.tableLead(block));
    this.y = drawTableHeader(this.pdf, block, MARGIN_X, this.y, WIDTH, block.title);
    block.rows.forEach((row, i) => {
      if (this.y + tableRowHeight(this.pdf, block, row, WIDTH) > CONTENT_BOTTOM) {
        this.newPage();
        const title = block.title ? `${block.title} (continued)` : '';
        this.y = drawTableHeader(this.pdf, block, MARGIN_X, this.y, WIDTH, title);
      }
      this.y = drawTableRow(this.pdf, block, row, i, MARGIN_X, this.y, WIDTH);
    });
    this.y += BLOCK_GAP;
  }
}

export interface PdfMetadata {
  /** Stamped as the PDF's creation date, so one report's bytes do not depend on the clock. */
  createdAt: Date;
}

export interface RenderedPdf {
  bytes: Buffer;
  /** Characters no font had, drawn as empty boxes (docs/reports.md, REPORT_FONTS). */
  missingGlyphs: string[];
}

export async function renderPdf(
  doc: ReportDocument,
  fonts: ReportFonts,
  meta: PdfMetadata,
): Promise<RenderedPdf> {
  const pdf: Pdf = new PDFDocument({
    size: 'A4',
    margin: 0,
    bufferPages: true,
    lang: 'en',
    displayTitle: true,
    info: {
      Title: `${doc.title}: ${doc.brandName}`,
      Subject: doc.windowLabel,
      Author: 'Sightline',
      Creator: 'Sightline reports',
      CreationDate: meta.createdAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  registerFonts(pdf, fonts);

  drawBand(pdf, doc);
  const flow = new Flow(pdf);
  for (const section of doc.sections) flow.section(section);

  const { start, count } = pdf.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    pdf.switchToPage(i);
    if (i > start) drawRunningHeader(pdf, doc);
    drawFooter(pdf, doc, i - start + 1, count);
  }
  pdf.end();
  return { bytes: await done, missingGlyphs: missingGlyphs(pdf) };
}
