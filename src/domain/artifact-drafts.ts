// The words a recommendation's artifact is drafted from: the values its generation prompt and its
// template are filled with, its title and its target. They come from two things only, the
// recommendation's own brand (name, website) and its own evidence, so a prompt sent to an engine
// can carry no other organization's data: there is nothing else here to carry.
import type {
  CitationOutreachEvidence,
  ContentGapEvidence,
  DraftEvidence,
} from './recommendation-evidence.ts';

export type ArtifactType = 'content_brief' | 'outreach_note';

export const ARTIFACT_TYPE: Record<DraftEvidence['recType'], ArtifactType> = {
  content_gap: 'content_brief',
  citation_outreach: 'outreach_note',
};

export interface DraftBrand {
  name: string;
  website: string;
}

/** What the artifact is about, for the simulated engine (monitoring/engines DraftContext). */
export interface DraftSubject {
  artifactType: ArtifactType;
  brandName: string;
  subject: string;
  competitorNames: string[];
}

/** "3 of 4 answers (75%)"; without a percentage when there is nothing to divide by. */
export function share(part: number, whole: number, unit = 'answers'): string {
  const of = `${part} of ${whole} ${unit}`;
  return whole === 0 ? of : `${of} (${Math.round((100 * part) / whole)}%)`;
}

const day = (instant: string) => instant.slice(0, 10);
const names = new Intl.ListFormat('en', { type: 'conjunction' });

function common(brand: DraftBrand, evidence: ContentGapEvidence | CitationOutreachEvidence) {
  return {
    brandName: brand.name,
    brand: brand.website ? `${brand.name} (${brand.website})` : brand.name,
    windowStart: day(evidence.window.start),
    windowEnd: day(evidence.window.end),
    competitorNames:
      evidence.competitors.length === 0
        ? 'the alternatives'
        : names.format(evidence.competitors.map((c) => c.name)),
  };
}

/** "HubSpot CRM (in 3), Pipedrive (in 2)": each competitor with its count, or "none". */
const listed = (counts: { name: string; count: string }[]) =>
  counts.length === 0 ? 'none' : counts.map((c) => `${c.name} (${c.count})`).join(', ');

function contentGapValues(brand: DraftBrand, e: ContentGapEvidence): Record<string, string> {
  return {
    ...common(brand, e),
    competitorList: listed(e.competitors.map((c) => ({ name: c.name, count: `in ${c.answers}` }))),
    promptText: e.promptText,
    brandShare: share(e.brandAnswers, e.answers),
    usualRate:
      e.usualMentionRate === null
        ? ''
        : ` Across its other monitored prompts it was named in ${Math.round(100 * e.usualMentionRate)}% of answers.`,
  };
}

function outreachValues(brand: DraftBrand, e: CitationOutreachEvidence): Record<string, string> {
  return {
    ...common(brand, e),
    competitorList: listed(
      e.competitors.map((c) => ({
        name: c.name,
        count: `${c.citations} citation${c.citations === 1 ? '' : 's'}`,
      })),
    ),
    domain: e.domain,
    competitorShare: share(e.competitorCitations, e.competitorCitationTotal, 'citations'),
    brandShare: share(e.brandCitations, e.brandCitationTotal, 'citations'),
  };
}

/** The placeholders' values for the artifact's prompt and template. */
export function draftValues(brand: DraftBrand, draft: DraftEvidence): Record<string, string> {
  return draft.recType === 'content_gap'
    ? contentGapValues(brand, draft.evidence)
    : outreachValues(brand, draft.evidence);
}

export function draftSubject(brand: DraftBrand, draft: DraftEvidence): DraftSubject {
  return {
    artifactType: ARTIFACT_TYPE[draft.recType],
    brandName: brand.name,
    subject: draft.recType === 'content_gap' ? draft.evidence.promptText : draft.evidence.domain,
    competitorNames: draft.evidence.competitors.map((c) => c.name),
  };
}

/**
 * The artifact's title and target URL: a content brief's page does not exist yet (none); an
 * outreach note goes to the domain's home page (the aggregates keep which domains answers naming
 * a competitor cite, not which of their pages).
 */
export function draftHeading(draft: DraftEvidence): { title: string; targetUrl: string } {
  if (draft.recType === 'content_gap') {
    return { title: `Content brief: ${draft.evidence.promptText}`, targetUrl: '' };
  }
  const { domain } = draft.evidence;
  return { title: `Outreach note to ${domain}`, targetUrl: `https://${domain}/` };
}

/**
 * `{{name}}` replaced by its value, in one pass (a value containing braces stays as it is). A
 * placeholder without a value is a mistake in the prompt file, never filled with nothing.
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the template's placeholder {{${name}}} has no value`);
    return value;
  });
}
