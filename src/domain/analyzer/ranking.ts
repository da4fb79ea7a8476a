import { candidateName } from './candidates.ts';
import type { Mention } from './matcher.ts';
import { canonicalKey } from './names.ts';
import { firstStartingWithin } from './positions.ts';
import type { Entry, Structure } from './structure.ts';
import type { Candidate } from './types.ts';

// Ranks: the answer's brand lists come first — list items, table rows, headings and bold-led
// paragraphs whose lead names a brand, in document order — then every other recognised brand in
// order of first mention. One sequence of positions covers the brand, known competitors and unknown
// candidates, so a brand listed after two unknown names is third.

export interface Ranking {
  /** Rank of each recognised entity (by index) the answer mentions. */
  entities: Map<number, number>;
  candidates: Candidate[];
  /** The entity each entry's lead names, when it names one. */
  leaders: Map<Entry, number>;
}

// What may stand between the start of a lead and the name it opens with.
const LEAD_PREFIX = /^[\s[*_"'“‘(]*(?:the\s+)?$/iu;

function leaderOf(entry: Entry, mentions: readonly Mention[], text: string): number | null {
  for (const lead of entry.leads) {
    const first = firstStartingWithin(mentions, lead);
    if (first && LEAD_PREFIX.test(text.slice(lead.start, first.start))) return first.entity;
  }
  return null;
}

export function rankEntities(
  structure: Structure,
  mentions: readonly Mention[],
  knownKeys: ReadonlySet<string>,
  text: string,
): Ranking {
  const leaders = new Map<Entry, number>();
  for (const group of structure.groups) {
    for (const entry of group.entries) {
      const leader = leaderOf(entry, mentions, text);
      if (leader !== null) leaders.set(entry, leader);
    }
  }
  // A group is a brand list when one of its leads names a known brand. Details nested under a
  // brand's item ("- Integrates with Slack") describe that brand and rank nothing.
  const ranked: Entry[] = [];
  for (const group of structure.groups) {
    if (!group.entries.some((e) => leaders.has(e))) continue;
    if (group.parent && leaders.has(group.parent)) continue;
    // One by one: spread into push, a list of 200,000 items overflowed the call stack.
    for (const entry of group.entries) ranked.push(entry);
  }
  ranked.sort((a, b) => a.start - b.start);

  const entities = new Map<number, number>();
  const candidates: Candidate[] = [];
  const seenCandidates = new Set<string>();
  let position = 0;
  for (const entry of ranked) {
    const leader = leaders.get(entry);
    if (leader !== undefined) {
      if (!entities.has(leader)) entities.set(leader, ++position);
      continue;
    }
    const name = candidateName(text, entry.leads);
    if (!name) continue;
    const key = canonicalKey(name);
    if (!key || knownKeys.has(key) || seenCandidates.has(key)) continue;
    seenCandidates.add(key);
    candidates.push({ key, name, rank: ++position });
  }
  // Mentions come in text order.
  for (const mention of mentions) {
    if (!entities.has(mention.entity)) entities.set(mention.entity, ++position);
  }
  return { entities, candidates, leaders };
}
