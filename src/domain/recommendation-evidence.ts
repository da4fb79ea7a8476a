// What a recommendation's `evidence` column (a JSON object) holds for the two types that carry a
// drafted artifact: one type for both sides. The generator (domain/recommendations/rules.ts)
// writes it; the artifact drafter reads these fields and nothing else of the organization's data,
// so a rationale and its draft quote the same numbers (docs/recommendations.md, "Artifacts").
// Fields beyond these (a content gap's rates, say) are allowed and ignored here.
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/schema';
import { InvalidInput } from './catalog.ts';

const Count = Type.Integer({ minimum: 0 });

/** The window the figures cover: ISO-8601 UTC instants, start inclusive, end exclusive. */
const EvidenceWindow = Type.Object({ start: Type.String(), end: Type.String() });

/** A competitor, and in how many of the answers the finding rests on it was named. */
const CompetitorCount = Type.Object({ name: Type.String({ minLength: 1 }), answers: Count });

export const ContentGapEvidenceSchema = Type.Object({
  window: EvidenceWindow,
  promptId: Type.Integer({ minimum: 1 }),
  /** The monitored prompt's text, as the organization wrote it. */
  promptText: Type.String({ minLength: 1 }),
  /** Usable answers to the prompt in the window (Σ sampleCount). */
  answers: Count,
  /** How many of them mention the brand. */
  brandAnswers: Count,
  /** The brand's mention rate (0–1) over its other prompts in the window; null when none. */
  usualMentionRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
  /** Competitors named in the prompt's answers, most often named first. */
  competitors: Type.Array(CompetitorCount),
});

/** A share (0–1) as the generator rounds it: four decimals. */
const Share = Type.Number({ minimum: 0, maximum: 1 });

/**
 * The analytics keep citations per named entity, not per answer, so an outreach finding counts
 * citations: those of the domain and all of them, in the answers naming a competitor (counted
 * once per competitor named, as the share-of-voice sourceBreakdown counts them) and in the answers
 * naming the brand.
 */
export const CitationOutreachEvidenceSchema = Type.Object({
  window: EvidenceWindow,
  /** The cited registrable domain (`www.` dropped), as the sources block shows it. */
  domain: Type.String({ minLength: 1 }),
  competitorCitations: Count,
  competitorCitationTotal: Count,
  competitorShare: Share,
  brandCitations: Count,
  brandCitationTotal: Count,
  brandShare: Share,
  /** The competitors in whose answers the domain is cited, and its citations there, most first. */
  competitors: Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), citations: Count })),
});

export type ContentGapEvidence = Static<typeof ContentGapEvidenceSchema>;
export type CitationOutreachEvidence = Static<typeof CitationOutreachEvidenceSchema>;

export type DraftEvidence =
  | { recType: 'content_gap'; evidence: ContentGapEvidence }
  | { recType: 'citation_outreach'; evidence: CitationOutreachEvidence };

const checks = {
  content_gap: Compile(ContentGapEvidenceSchema),
  citation_outreach: Compile(CitationOutreachEvidenceSchema),
};

/**
 * The evidence a draft is written from, or null for a type that has no drafted artifact. Evidence
 * that does not hold the fields above is refused rather than drafted from half the figures.
 */
export function readDraftEvidence(recType: string, evidenceJson: string): DraftEvidence | null {
  if (recType !== 'content_gap' && recType !== 'citation_outreach') return null;
  let evidence: unknown;
  try {
    evidence = JSON.parse(evidenceJson);
  } catch {
    throw new InvalidInput(`the ${recType} evidence is not JSON`);
  }
  const check = checks[recType];
  if (!check.Check(evidence)) {
    const [, errors] = check.Errors(evidence);
    const first = errors[0];
    const where = first?.instancePath || '/';
    throw new InvalidInput(
      `the ${recType} evidence does not hold what a draft needs (${where}: ${first?.message})`,
    );
  }
  return recType === 'content_gap'
    ? { recType, evidence: evidence as ContentGapEvidence }
    : { recType, evidence: evidence as CitationOutreachEvidence };
}
