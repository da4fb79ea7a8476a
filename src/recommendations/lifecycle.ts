import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connect.ts';
import {
  findRecommendation,
  findRecommendationSubject,
  insertOutcome,
  transitionRecommendation,
} from '../db/recommendations.ts';
import { inTransaction } from '../db/transaction.ts';
import { measure, outcomeWindows, samplesNote } from '../domain/recommendations/outcomes.ts';
import { MEASUREMENT_WINDOW_DAYS } from '../domain/recommendations/rules.ts';
import { localDate } from '../domain/windows.ts';
import { loadFacts } from './facts.ts';

// The operator's hand on a recommendation (the API stays read-only): start, implement, dismiss.
// open → in_progress → implemented | dismissed, or straight from open to either end; implemented,
// dismissed and superseded are final. Implementing records the outcome's baseline in the same
// transaction as the state change, so an implemented recommendation always has one.

const ACTIONS = {
  start: { from: ['open'], to: 'in_progress' },
  implement: { from: ['open', 'in_progress'], to: 'implemented' },
  dismiss: { from: ['open', 'in_progress'], to: 'dismissed' },
} as const;
export type Action = keyof typeof ACTIONS;

/** Longest dismissal reason kept. */
export const MAX_REASON_LENGTH = 500;

/** A request the state rules refuse; nothing was changed. */
class LifecycleError extends Error {
  override name = 'LifecycleError';
}

export interface Change {
  id: string;
  status: string;
  /** The baseline recorded on implement, when the recommendation's type has a metric. */
  baseline?: { metricName: string; metricSubject: string; value: number; sampleSize: number };
}

/** Records the baseline of an implemented recommendation: its metric over the days before. */
async function baselineOf(
  db: Db,
  rec: NonNullable<Awaited<ReturnType<typeof findRecommendation>>>,
  at: Date,
  now: Date,
) {
  const subject = await findRecommendationSubject(db, rec.org_id, rec.brand_id);
  if (!subject) return null;
  const windows = outcomeWindows(localDate(at, subject.timezone), MEASUREMENT_WINDOW_DAYS);
  const { facts } = await loadFacts(
    db,
    { orgId: rec.org_id, brandId: rec.brand_id },
    { range: 'custom', ...windows.baseline },
    now,
    subject.timezone,
    { withPrevious: false },
  );
  const m = measure(
    {
      recType: rec.rec_type,
      subjectKind: rec.subject_kind,
      subject: rec.subject,
      evidence: JSON.parse(rec.evidence),
    },
    facts,
  );
  return m && { ...m, windows };
}

export async function changeStatus(
  db: Db,
  orgId: number,
  id: string,
  action: Action,
  options: { at: Date; now: Date; reason?: string; newId?: () => string },
): Promise<Change> {
  const rec = await findRecommendation(db, orgId, id);
  if (!rec) throw new LifecycleError(`recommendation ${id} does not exist in this organization`);
  const rule = ACTIONS[action];
  if (!(rule.from as readonly string[]).includes(rec.status)) {
    throw new LifecycleError(
      `recommendation ${id} is ${rec.status}; ${action} needs it ${rule.from.join(' or ')}`,
    );
  }
  const reason = options.reason?.trim() ?? '';
  if (action === 'dismiss' && reason === '') throw new LifecycleError('dismiss needs --reason');
  const at = options.at.toISOString();
  // A back-dated change (--at) cannot precede what it follows: the baseline would be measured over
  // days before the finding existed (year 1 was taken, with 0 samples).
  for (const [earlier, what] of [
    [rec.created_at, 'created'],
    [rec.started_at, 'started'],
  ] as const) {
    if (earlier !== null && options.at.getTime() < new Date(earlier).getTime())
      throw new LifecycleError(
        `recommendation ${id} was ${what} at ${new Date(earlier).toISOString()}; ${action} cannot be dated ${at}, before that`,
      );
  }
  const stamps =
    action === 'start'
      ? { started_at: at }
      : action === 'implement'
        ? { implemented_at: at }
        : { dismissed_at: at, dismissed_reason: reason };
  // A recommendation written by hand has no finding, so no metric to follow.
  const baseline =
    action === 'implement' && rec.finding_key !== ''
      ? await baselineOf(db, rec, options.at, options.now)
      : null;

  const work = async (trx: Db) => {
    const moved = await transitionRecommendation(trx, orgId, id, rule.from, {
      status: rule.to,
      ...stamps,
      updated_at: options.now.toISOString(),
    });
    // Another operator moved it between the read and now: report its state, change nothing.
    if (!moved) throw new LifecycleError(`recommendation ${id} changed meanwhile; run the command again`);
    if (baseline) {
      const { baseline: before, current } = baseline.windows;
      await insertOutcome(trx, {
        id: (options.newId ?? randomUUID)(),
        org_id: orgId,
        recommendation_id: id,
        metric_name: baseline.metricName,
        metric_subject: baseline.metricSubject,
        baseline_value: baseline.value,
        current_value: baseline.value,
        baseline_at: at,
        measured_at: at,
        measurement_window_days: MEASUREMENT_WINDOW_DAYS,
        attribution_confidence: '',
        is_measured: 0,
        notes: `Baseline over range=custom&start=${before.start}&end=${before.end} (${samplesNote(baseline.sampleSize)}); measured over range=custom&start=${current.start}&end=${current.end} once that window has passed.`,
        baseline_sample_size: baseline.sampleSize,
        current_sample_size: 0,
      });
    }
  };
  await inTransaction(db, work);
  return {
    id,
    status: rule.to,
    ...(baseline && {
      baseline: {
        metricName: baseline.metricName,
        metricSubject: baseline.metricSubject,
        value: baseline.value,
        sampleSize: baseline.sampleSize,
      },
    }),
  };
}
