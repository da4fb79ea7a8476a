// The analyzer's input and output. Everything here is plain data so that the import, the CLI and
// the corpus tests share one vocabulary.

export type Sentiment = 'positive' | 'neutral' | 'negative';

export interface BrandSpec {
  name: string;
  aliases?: readonly string[];
  /** The brand's site; its registrable domain (e.g. monday.com) becomes an implicit alias. */
  website?: string | null;
}

export interface CompetitorSpec {
  /** Canonical display name; every alias is reported under it. */
  name: string;
  aliases?: readonly string[];
  /** Canonical key; derived from the name when absent. */
  key?: string;
}

export interface AnalyzerSubject {
  brand: BrandSpec;
  /** The category's known competitors. */
  competitors: readonly CompetitorSpec[];
}

export interface AnswerInput {
  text: string;
  /** When present, its structure (lists, tables, bold, links) is read instead of the text's. */
  html?: string | null;
  /** Citation URLs captured alongside the answer, in the engine's order. */
  citations?: readonly string[];
}

export interface CompetitorMention {
  key: string;
  name: string;
  rank: number | null;
}

export interface Candidate {
  key: string;
  name: string;
  rank: number | null;
}

export interface Source {
  url: string;
  domain: string;
}

export interface Analysis {
  mentioned: boolean;
  /** Position among the brands the answer ranks; null when not mentioned. */
  rank: number | null;
  /** Toward the brand; null when not mentioned. */
  sentiment: Sentiment | null;
  /** Known competitors mentioned, by rank. */
  competitors: CompetitorMention[];
  /** Unknown names the answer ranks in its brand lists and tables: possible new competitors. */
  candidates: Candidate[];
  sources: Source[];
}
