import { getDomain } from 'tldts';
import { CALENDAR_WORDS, COMMON_WORDS, TIME_PREPOSITIONS } from './common-words.ts';
import { canonicalKey, fold, normalizeName } from './names.ts';
import { lastBefore, reachOf } from './positions.ts';
import type { Span, Structure } from './structure.ts';
import type { AnalyzerSubject } from './types.ts';

// Finding the brand and the known competitors in an answer. Matching is case-insensitive on word
// boundaries over the masked text (no code, URLs or e-mail addresses), diacritic-insensitive, and
// lets a possessive through ("Asana's"). A name that is also an ordinary word (common-words.ts)
// counts only where it is used as a name — see `classify`.

export interface EntityDef {
  kind: 'brand' | 'competitor';
  key: string;
  name: string;
}

interface Variant {
  entity: number;
  /** An ordinary word: needs evidence that it is used as a name. */
  common: boolean;
  /** A weekday or month: capitalisation is no evidence. */
  calendar: boolean;
}

export interface CompiledEntities {
  /** Index 0 is the brand; the rest are competitors. */
  entities: EntityDef[];
  pattern: RegExp | null;
  variants: Map<string, Variant>;
  /** Words in the longest name or alias: a list item's lead may be as long (structure.ts). */
  longestNameWords: number;
}

export interface Mention extends Span {
  entity: number;
}

// Letters and digits of scripts written with spaces; Chinese, Japanese, Korean and Thai text puts a
// name right against its neighbours, so those scripts never make a boundary fail.
const WORD = String.raw`[[\p{L}\p{N}_]--[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}]]`;
const MIN_VARIANT_LENGTH = 2;

function escapeVariant(variant: string): string {
  return fold(variant)
    .trim()
    .replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
    .replace(/\s+/g, String.raw`\s+`);
}

function websiteDomain(website: string | null | undefined): string | null {
  if (!website) return null;
  return getDomain(/^[a-z][a-z0-9+.-]*:\/\//i.test(website) ? website : `https://${website}`);
}

/** Every name an answer may call the brand by: its name, its aliases and its website's domain. */
export function brandNames(brand: AnalyzerSubject['brand']): string[] {
  return [brand.name, ...(brand.aliases ?? []), websiteDomain(brand.website) ?? ''];
}

export function compileEntities(subject: AnalyzerSubject): CompiledEntities {
  const brandKey = canonicalKey(subject.brand.name);
  const entities: EntityDef[] = [{ kind: 'brand', key: brandKey, name: subject.brand.name }];
  const variantLists: string[][] = [brandNames(subject.brand)];
  for (const competitor of subject.competitors) {
    const key = competitor.key ?? canonicalKey(competitor.name);
    if (key === brandKey || entities.some((e) => e.key === key)) continue;
    entities.push({ kind: 'competitor', key, name: competitor.name });
    variantLists.push([competitor.name, ...(competitor.aliases ?? [])]);
  }

  const variants = new Map<string, Variant>();
  const spellings: string[] = [];
  variantLists.forEach((list, entity) => {
    for (const variant of list) {
      const normalized = normalizeName(variant);
      // The brand comes first, so a name shared with a competitor is the brand's.
      if (normalized.length < MIN_VARIANT_LENGTH || variants.has(normalized)) continue;
      const calendar = CALENDAR_WORDS.has(normalized);
      variants.set(normalized, { entity, calendar, common: calendar || COMMON_WORDS.has(normalized) });
      spellings.push(variant);
    }
  });
  // Longest first, so that "monday.com" wins over "Monday" where both fit.
  spellings.sort((a, b) => b.length - a.length);
  const pattern =
    spellings.length > 0
      ? new RegExp(`(?<!${WORD})(?:${spellings.map(escapeVariant).join('|')})(?!${WORD})`, 'giv')
      : null;
  const longestNameWords = spellings.reduce((most, s) => Math.max(most, s.trim().split(/\s+/).length), 0);
  return { entities, pattern, variants, longestNameWords };
}

type Evidence = 'strong' | 'weak' | 'none';

const LEAD_NOISE = /\*\*|__|[[\]"“”'‘’]|\(\s*\)|[\s:.,;–—-]+$/g;
const LINE_START = /^[\s>|]*(?:\d{1,3}[.)]|[-*+•·▪◦–]|#{1,6})?[\s*_"'“‘[(]*$/u;
// What follows a name that opens a sentence as its subject ("Close is…", "Linear offers…"), as
// opposed to a verb or adjective opening one ("Close deals faster", "Linear regression…").
const SUBJECT_FOLLOWERS = new Set(
  `is isn't was wasn't has hasn't have had can can't could does doesn't did will won't would should may
   might also still now just offers provides lets gives supports includes integrates remains stands
   excels shines works costs charges focuses targets uses makes comes tends feels looks seems wins
   leads beats outperforms dominates ranks tops edges trails lags lacks struggles requires needs helps
   allows enables handles scales syncs connects starts became becomes delivers brings combines
   specializes specialises and or vs versus
   est es ist e ha hat a offre ofrece bietet oferece propose propone`
    .trim()
    .split(/\s+/),
);

/** Where the last line break and the last table cell border before a position are. */
interface Breaks {
  line: (position: number) => number;
  cell: (position: number) => number;
}

function isSentenceStart(text: string, start: number, breaks: Breaks): boolean {
  const lineStart = breaks.line(start) + 1;
  const cellStart = breaks.cell(start) + 1;
  if (LINE_START.test(text.slice(Math.max(lineStart, cellStart), start))) return true;
  let i = start - 1;
  while (i >= lineStart && /[\s*_"'“‘[(]/u.test(text[i] as string)) i--;
  return i >= lineStart && /[.!?…]/.test(text[i] as string);
}

function previousWord(folded: string, start: number): string {
  return /(\p{L}+)[\s,]*$/u.exec(folded.slice(Math.max(0, start - 24), start))?.[1]?.toLowerCase() ?? '';
}

/** The word after a match; a possessive or a comma counts as what follows. */
function nextWord(folded: string, end: number): string {
  const after = folded.slice(end, end + 24);
  if (/^'s?\b/.test(after) || after.startsWith(',')) return "'s";
  return /^\s+([\p{L}']+)/u.exec(after)?.[1]?.toLowerCase() ?? '';
}

/**
 * Whether one match of an ordinary-word name is used as the name. An exact list/table/heading lead
 * or a capitalised word inside a sentence is; so is a capitalised word opening a sentence as its
 * subject ("Linear is…", "Notion's…"). Lower case never is. Weekdays and months are capitalised
 * anyway, so for them even that is only a hint ('weak'), which counts when the answer also uses
 * the name unmistakably (a lead or an alias such as monday.com) and never after "on", "by", "next"…
 */
function classify(
  variant: Variant,
  original: string,
  folded: string,
  masked: string,
  span: Span,
  exactLead: boolean,
  breaks: Breaks,
): Evidence {
  if (!variant.common || exactLead) return 'strong';
  if (!/^\p{Lu}/u.test(original)) return 'none';
  if (variant.calendar) return TIME_PREPOSITIONS.has(previousWord(folded, span.start)) ? 'none' : 'weak';
  if (!isSentenceStart(masked, span.start, breaks)) return 'strong';
  const next = nextWord(folded, span.end);
  return next === "'s" || SUBJECT_FOLLOWERS.has(next) ? 'strong' : 'none';
}

export function findMentions(
  compiled: CompiledEntities,
  masked: string,
  folded: string,
  structure: Structure,
): Mention[] {
  if (!compiled.pattern) return [];
  const leads: Array<Span & { name: string }> = [];
  for (const group of structure.groups) {
    for (const entry of group.entries) {
      for (const lead of entry.leads) {
        leads.push({
          ...lead,
          name: normalizeName(masked.slice(lead.start, lead.end).replace(LEAD_NOISE, '')),
        });
      }
    }
  }
  // Per name, how far the leads starting at or before a position reach; made for a name once met.
  const leadReach = new Map<string, (position: number) => number>();
  const reachOfLeads = (name: string) => {
    let reach = leadReach.get(name);
    if (!reach) {
      reach = reachOf(leads.filter((lead) => lead.name === name));
      leadReach.set(name, reach);
    }
    return reach;
  };
  const breaks: Breaks = { line: lastBefore(masked, '\n'), cell: lastBefore(masked, '|') };
  const found: Array<Mention & { evidence: Evidence }> = [];
  for (const match of folded.matchAll(compiled.pattern)) {
    const start = match.index;
    const end = start + match[0].length;
    const normalized = normalizeName(match[0]);
    const variant = compiled.variants.get(normalized);
    if (!variant) continue;
    const exactLead = reachOfLeads(normalized)(start) >= end;
    const span = { start, end };
    const evidence = classify(variant, masked.slice(start, end), folded, masked, span, exactLead, breaks);
    if (evidence !== 'none') found.push({ entity: variant.entity, start, end, evidence });
  }
  const proven = new Set(found.filter((m) => m.evidence === 'strong').map((m) => m.entity));
  return found.filter((m) => proven.has(m.entity)).map(({ entity, start, end }) => ({ entity, start, end }));
}
