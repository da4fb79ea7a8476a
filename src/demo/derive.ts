// The derived fields of a synthetic answer (mentioned, rank, sentiment, entity mentions, cited
// sources), read off the script the answer was written from. This is the one place the demo
// decides what an answer means; when the real analyzer lands it replaces this file, reading the
// text instead of the script.
import { getDomain } from 'tldts';
import type { AnswerScript, SyntheticAnswer, Tone } from './answers.ts';

export interface DerivedMention {
  name: string;
  isBrand: boolean;
  canonicalKey: string | null;
  rank: number | null;
}

export interface DerivedCitation {
  url: string;
  domain: string;
  position: number;
}

export interface DerivedFields {
  mentioned: boolean;
  rank: number | null;
  sentiment: Tone | null;
  mentions: DerivedMention[];
  citations: DerivedCitation[];
}

/** Registrable domain of a URL (public-suffix aware, so www. and subdomains fold together). */
export function registrableDomain(url: string): string {
  return getDomain(url) ?? new URL(url).hostname;
}

/**
 * Every named entity is a mention, ranked by its position in the answer (list item, table row,
 * section or order of first mention in prose). `recordsRank` is false for legacy captures, whose
 * methodology kept mentions but not positions.
 */
export function deriveFields(
  script: AnswerScript,
  answer: SyntheticAnswer,
  options: { recordsRank: boolean },
): DerivedFields {
  const mentions = script.entities.map((entity, index) => ({
    name: entity.name,
    isBrand: entity.isBrand,
    canonicalKey: entity.canonicalKey,
    rank: options.recordsRank ? index + 1 : null,
  }));
  const brand = mentions.find((m) => m.isBrand);
  return {
    mentioned: brand !== undefined,
    rank: brand?.rank ?? null,
    sentiment: brand ? (script.brandTone ?? 'neutral') : null,
    mentions,
    citations: answer.citationUrls.map((url, index) => ({
      url,
      domain: registrableDomain(url),
      position: index + 1,
    })),
  };
}
