import type { Db } from '../db/connect.ts';
import { overlappingRecommendations, pendingOutcomes, recordMeasurement } from '../db/recommendations.ts';
import {
  type AttributionConfidence,
  attributionConfidence,
  measure,
  outcomeWindows,
  samplesNote,
} from '../domain/recommendations/outcomes.ts';
import { formatDate, localDate, parseRange } from '../domain/windows.ts';
import { loadFacts } from './facts.ts';

// Measuring outcomes (docs/recommendations.md "Outcomes"): an implemented recommendation's
// metric over the `measurementWindowDays` calendar days after the implementation day, once they
// have passed, beside the baseline recorded over the days before. Safe to run at any time and as
// often as wanted: an outcome is measured once, and only when its window is complete.

export interface MeasuredOutcome {
  outcomeId: string;
  recommendationId: string;
  metricName: string;
  baselineValue: number;
  currentValue: number;
  baselineSampleSize: number;
  currentSampleSize: number;
  attributionConfidence: AttributionConfidence;
}

/** Measures every due outcome of one organization (or, for the operator, of all). */
export async function measureOutcomes(
  db: Db,
  options: { orgId: number | null; at: Date },
): Promise<MeasuredOutcome[]> {
  const measured: MeasuredOutcome[] = [];
  for (const o of await pendingOutcomes(db, options.orgId)) {
    const windows = outcomeWindows(localDate(new Date(o.implementedAt), o.timezone), o.windowDays);
    if (formatDate(localDate(options.at, o.timezone)) <= windows.current.end) continue;
    const evidence = JSON.parse(o.evidence) as Record<string, unknown>;
    const { window, facts } = await loadFacts(
      db,
      { orgId: o.orgId, brandId: o.brandId },
      { range: 'custom', ...windows.current },
      options.at,
      o.timezone,
      { withPrevious: false },
    );
    const m = measure(
      { recType: o.recType, subjectKind: o.subjectKind, subject: o.subject, evidence },
      facts,
    );
    if (!m) continue;
    const baseline = parseRange({ range: 'custom', ...windows.baseline }, options.at, o.timezone);
    const from = baseline.ok && baseline.value.start ? baseline.value.start : window.start;
    const others = await overlappingRecommendations(
      db,
      o.orgId,
      { id: o.recommendationId, brandId: o.brandId, subjectKind: o.subjectKind, subject: o.subject },
      from.toISOString(),
      window.end.toISOString(),
    );
    const confidence = attributionConfidence(o.baselineSampleSize, m.sampleSize, others.length);
    const notes =
      `Baseline over range=custom&start=${windows.baseline.start}&end=${windows.baseline.end} ` +
      `(${samplesNote(o.baselineSampleSize)}), current over range=custom&start=${windows.current.start}` +
      `&end=${windows.current.end} (${samplesNote(m.sampleSize)}); ` +
      (others.length === 0
        ? 'no other recommendation on this subject was started or implemented in between.'
        : `also started or implemented on this subject in between: ${others.join(', ')}.`);
    const done = await recordMeasurement(db, o.orgId, o.id, {
      current_value: m.value,
      current_sample_size: m.sampleSize,
      measured_at: options.at.toISOString(),
      attribution_confidence: confidence,
      notes,
    });
    if (!done) continue;
    measured.push({
      outcomeId: o.id,
      recommendationId: o.recommendationId,
      metricName: m.metricName,
      baselineValue: o.baselineValue,
      currentValue: m.value,
      baselineSampleSize: o.baselineSampleSize,
      currentSampleSize: m.sampleSize,
      attributionConfidence: confidence,
    });
  }
  return measured;
}
