// The layout model every report type produces and both renderers draw. A report type decides
// what a document says; the renderers decide only how it looks, so the PDF and the HTML of one
// report always carry the same figures.

/** How a change reads for the brand: better, worse, or neither (also when it cannot be computed). */
export type Tone = 'good' | 'bad' | 'neutral';

export interface Change {
  text: string;
  tone: Tone;
}

export interface Kpi {
  label: string;
  value: string;
  change: Change | null;
  /** One short line under the figure: what the change is measured against, or why it is absent. */
  note: string;
}

export interface TrendPoint {
  /** ISO-8601 instant. */
  date: string;
  /** A score, 0–100. */
  value: number;
}

export interface Bar {
  label: string;
  /** Bar length as a fraction of the longest possible bar, 0–1. */
  fraction: number;
  valueText: string;
  change: Change | null;
  highlight: boolean;
}

export interface SplitSegment {
  label: string;
  count: number;
  tone: Tone;
}

export interface Column {
  label: string;
  align: 'left' | 'right';
  /** Share of the table width, relative to the other columns' weights. */
  weight: number;
}

export interface TextCell {
  text: string;
  tone?: Tone;
  strong?: boolean;
}

/** Several lines in one cell, each with its own tone (e.g. everything that changed for a prompt). */
export interface LinesCell {
  lines: Change[];
}

export type TableCell = TextCell | LinesCell;

export interface Card {
  title: string;
  /** A short label at the card's top right, e.g. the priority. */
  tag: string;
  tagTone: Tone;
  lines: { label: string; text: string }[];
}

export type Block =
  | { kind: 'kpis'; items: Kpi[] }
  | { kind: 'paragraph'; text: string; muted?: boolean }
  | { kind: 'bullets'; items: string[] }
  | { kind: 'trend'; title: string; points: TrendPoint[]; empty: string; timeZone: string }
  | {
      kind: 'bars';
      title: string;
      bars: Bar[];
      empty: string;
      /** A muted line under the bars, for what a bar has no room to say; '' for none. */
      note: string;
    }
  | { kind: 'split'; title: string; segments: SplitSegment[]; empty: string }
  | { kind: 'table'; title: string; columns: Column[]; rows: TableCell[][]; empty: string }
  | { kind: 'card'; card: Card }
  | { kind: 'columns'; columns: [Block[], Block[]] };

export interface Section {
  title: string;
  /** Start the section on a fresh page (PDF and print). */
  newPage?: boolean;
  blocks: Block[];
}

export interface ReportDocument {
  /** The report type's label, e.g. "Executive summary". */
  title: string;
  brandName: string;
  /** The window the figures cover, e.g. "Last 30 days · 14 Feb – 16 Mar 2026 (UTC)". */
  windowLabel: string;
  /** e.g. "Generated 16 Mar 2026 09:30 UTC". */
  generatedLabel: string;
  /** "Prepared for <organization>" (or "by", for a prospect) on branded reports; null otherwise. */
  preparedFor: string | null;
  sections: Section[];
}
