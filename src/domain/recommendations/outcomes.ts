import { addDays, type CalendarDate, formatDate } from '../windows.ts';
import { averageRank, type Facts } from './facts.ts';
import { ahead, type RecType } from './rules.ts';

// What an outcome measures (docs/recommendations.md "Outcomes"): each type's metric read from the
// analytics facts of a window, the two windows around the implementation day, and how far the
// before/after comparison can be credited to the recommendation.

/** Both sides need this many samples for a high attribution confidence… */
export const ATTRIBUTION_HIGH_SAMPLES = 30;
/** …and this many for a medium one; fewer is low. */
export const ATTRIBUTION_MEDIUM_SAMPLES = 10;

export interface Measurement {
  metricName: string;
  /** What the metric is about, e.g. `prompt:12`, `domain:g2.com`, `platform:chatgpt`. */
  metricSubject: string;
  /** 0 when the window has no sample (sampleSize 0). */
  value: number;
  sampleSize: number;
}

export interface MeasuredRecommendation {
  recType: string;
  subjectKind: string;
  subject: string;
  evidence: Record<string, unknown>;
}

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

/** The recommendation's metric over the window the facts were loaded for; null for a type it does not know. */
export function measure(rec: MeasuredRecommendation, facts: Facts): Measurement | null {
  const metricSubject = `${rec.subjectKind}:${rec.subject}`;
  const now = facts.current;
  switch (rec.recType as RecType) {
    case 'content_gap': {
      const p = now.prompts.get(Number(rec.subject));
      const samples = p?.samples ?? 0;
      return {
        metricName: 'prompt_mention_rate',
        metricSubject,
        value: ratio(p?.brand.mentions ?? 0, samples),
        sampleSize: samples,
      };
    }
    case 'citation_outreach':
      return {
        metricName: 'domain_citation_share_with_brand',
        metricSubject,
        value: ratio(now.domains.brand.get(rec.subject) ?? 0, now.domains.brandTotal),
        sampleSize: now.domains.brandTotal,
      };
    case 'sentiment_risk': {
      const s = now.engines.get(rec.subject)?.sentiment;
      const total = s ? s.positive + s.neutral + s.negative : 0;
      return {
        metricName: 'engine_negative_share',
        metricSubject,
        value: ratio(s?.negative ?? 0, total),
        sampleSize: total,
      };
    }
    case 'engine_gap': {
      const e = now.engines.get(rec.subject);
      if (rec.evidence.basis === 'rank') {
        return {
          metricName: 'engine_average_rank',
          metricSubject,
          value: (e && averageRank(e.brand)) ?? 0,
          sampleSize: e?.brand.rankedWeight ?? 0,
        };
      }
      return {
        metricName: 'engine_mention_rate',
        metricSubject,
        value: ratio(e?.brand.mentions ?? 0, e?.samples ?? 0),
        sampleSize: e?.samples ?? 0,
      };
    }
    case 'competitor_displacement': {
      const listed = Array.isArray(rec.evidence.prompts) ? rec.evidence.prompts : [];
      const promptIds = listed.map((p: { promptId?: unknown }) => Number(p.promptId));
      const prompts = promptIds.map((id) => now.prompts.get(id));
      const brandAhead = prompts.filter((p) => p && ahead(p.brand, p.competitors.get(rec.subject))).length;
      return {
        metricName: 'prompts_ahead_of_competitor_share',
        metricSubject,
        value: ratio(brandAhead, promptIds.length),
        sampleSize: prompts.reduce((sum, p) => sum + (p?.samples ?? 0), 0),
      };
    }
    default:
      return null;
  }
}

/**
 * A window's sample size as an outcome's notes give it. A window without samples records 0 as its
 * value, which for some metrics reads as a result (an average rank of 0 looks better than first),
 * so the notes say it stands for none.
 */
export function samplesNote(sampleSize: number): string {
  return sampleSize > 0 ? `${sampleSize} samples` : '0 samples: no value, the 0 recorded stands for none';
}

/**
 * The two windows an outcome compares, as calendar days in the organization's time zone: the
 * `days` days before the implementation day (baseline) and the `days` days after it (current).
 * The implementation day itself belongs to neither: the change shipped some time during it.
 * Each is what `?range=custom&start=…&end=…` of the analytics endpoint covers.
 */
export function outcomeWindows(implementedOn: CalendarDate, days: number) {
  return {
    baseline: {
      start: formatDate(addDays(implementedOn, -days)),
      end: formatDate(addDays(implementedOn, -1)),
    },
    current: { start: formatDate(addDays(implementedOn, 1)), end: formatDate(addDays(implementedOn, days)) },
  };
}

export type AttributionConfidence = 'high' | 'medium' | 'low';

/**
 * high when both sides have at least ATTRIBUTION_HIGH_SAMPLES samples, medium at
 * ATTRIBUTION_MEDIUM_SAMPLES, else low; one step lower (never below low) when another
 * recommendation on the same subject was started or implemented between the baseline window's
 * start and the current window's end, since the change may be its doing.
 */
export function attributionConfidence(
  baselineSamples: number,
  currentSamples: number,
  overlapping: number,
): AttributionConfidence {
  const fewer = Math.min(baselineSamples, currentSamples);
  const levels: AttributionConfidence[] = ['low', 'medium', 'high'];
  const level = fewer >= ATTRIBUTION_HIGH_SAMPLES ? 2 : fewer >= ATTRIBUTION_MEDIUM_SAMPLES ? 1 : 0;
  return levels[Math.max(0, level - (overlapping > 0 ? 1 : 0))] as AttributionConfidence;
}
