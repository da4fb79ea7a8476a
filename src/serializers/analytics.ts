import type { WindowData } from '../analytics/window.ts';
import {
  metrics,
  platforms,
  type Ratio,
  type ShareItem,
  type ShareOfVoiceInput,
  shareOfVoice,
  sources,
} from '../domain/analytics.ts';
import { type History, thin, type WindowedDelta } from '../domain/score-history.ts';
import { CURRENT_METHODOLOGY, roundRank, roundRate, roundScore } from '../domain/scoring.ts';
import type { Window } from '../domain/windows.ts';

// The analytics and score-history bodies, shared by the routes and the reports so that a report's
// figures are the API's very ones. Every figure comes from the domain layer unrounded and is
// rounded here, at the edge (scores 1 decimal, rates and shares 4, ranks 2; deltas from
// unrounded values).

const SCOPE = 'historical_observation';

const nullable = <T, R>(value: T | null, round: (v: T) => R): R | null =>
  value === null ? null : round(value);

function windowLabel(window: Window): string {
  if (window.selection.kind === 'rolling') return `Last ${window.spanLabel.replace('d', '')} days`;
  if (window.range === 'all') return 'All time';
  return window.spanLabel;
}

function presentRatio(ratio: Ratio, round: (v: number) => number) {
  return {
    value: nullable(ratio.value, round),
    previousValue: nullable(ratio.previousValue, round),
    delta: nullable(ratio.delta, round),
    suppressedReason: ratio.suppressedReason,
    numerator: ratio.numerator,
    denominator: ratio.denominator,
    interval: ratio.estimate.interval,
    intervalReason: ratio.estimate.reason,
    significance: ratio.significance,
  };
}

function presentShare(item: ShareItem) {
  return {
    id: String(item.id),
    categoryId: item.categoryId === null ? null : String(item.categoryId),
    name: item.name,
    mentions: item.mentions,
    averageRank: nullable(item.averageRank, roundRank),
    score: nullable(item.score, roundScore),
    isUserBrand: item.isUserBrand,
    sourceBreakdown: item.sourceBreakdown,
    share: nullable(item.share, roundRate),
    previousShare: nullable(item.previousShare, roundRate),
    shareDelta: nullable(item.shareDelta, roundRate),
    shareDeltaSuppressedReason: item.shareDeltaSuppressedReason,
    shareDeltaSignificance: item.shareDeltaSignificance,
    interval: item.estimate.interval,
    intervalReason: item.estimate.reason,
  };
}

type Brand = ShareOfVoiceInput['brand'];

/** Everything in an analytics body but its window and the window's label. */
function figuresOf(data: WindowData, brand: Brand) {
  const { current, previous } = data;
  const m = metrics(current, previous);
  const voice = shareOfVoice({ brand, competitors: data.competitors, current, previous });
  const cited = sources(current, previous);
  const engines = platforms(current);
  const platformFigures = (p: (typeof engines.byModel)[number]) => ({
    score: roundScore(p.score ?? 0),
    mentionRate: roundRate(p.mentionRate ?? 0),
    mentionRateInterval: p.mentionRateEstimate.interval,
    mentionRateIntervalReason: p.mentionRateEstimate.reason,
    totalAnswers: p.totalAnswers,
    totalSamples: p.totalSamples,
  });
  return {
    metrics: {
      sampleCount: m.sampleCount,
      mentionRate: presentRatio(m.mentionRate, roundRate),
      avgRank: presentRatio(m.avgRank, roundRank),
      sentiment: m.sentiment,
    },
    shareOfVoice: {
      visible: voice.visible.map(presentShare),
      hidden: voice.hidden.map(presentShare),
    },
    sources: {
      totalDomains: cited.totalDomains,
      totalCitations: cited.totalCitations,
      items: cited.items.map((item) => ({
        domain: item.domain,
        count: item.count,
        share: roundRate(item.share),
        previousShare: nullable(item.previousShare, roundRate),
        shareDelta: nullable(item.shareDelta, roundRate),
        shareDeltaSuppressedReason: item.shareDeltaSuppressedReason,
        shareDeltaSignificance: item.shareDeltaSignificance,
        urlCount: item.urlCount,
        interval: item.estimate.interval,
        intervalReason: item.estimate.reason,
      })),
    },
    platforms: {
      apiPlatforms: engines.byModel.map((p) => ({
        model: p.key,
        modelLabel: p.label,
        ...platformFigures(p),
      })),
      surfacePlatforms: engines.bySurface.map((p) => ({
        surface: p.key,
        surfaceLabel: p.label,
        ...platformFigures(p),
      })),
    },
    coverage: {
      observationMethodology: CURRENT_METHODOLOGY,
      comparableFrom: data.comparableFrom,
      ...current.classification.coverage,
    },
  };
}

type Figures = ReturnType<typeof figuresOf>;

// The figures worked out last from each current side, by the side itself. A side served from the
// analytics cache is the very object kept there, so a window asked again (its ends moved by the
// clock) or after a commit elsewhere finds its figures here instead of working out intervals and
// shares anew (docs/performance.md, "Figures kept with their sides"). What else they rest on is
// compared: the previous side by identity, the brand, its competitors and comparableFrom by value.
// Both sides are held weakly: an entry goes when its current side leaves the cache, and does not
// keep a previous side the cache has let go. The figures are never changed once made, so bodies
// may share them.
const figuresBySide = new WeakMap<
  object,
  { previous: WeakRef<object> | null; inputs: string; figures: Figures }
>();

function keptFigures(data: WindowData, brand: Brand): Figures {
  const inputs = JSON.stringify([brand, data.competitors, data.comparableFrom]);
  const held = figuresBySide.get(data.current);
  // A previous side gone from memory is not the one asked with: deref() gives undefined then.
  const previous = held?.previous === null ? null : held?.previous.deref();
  if (held && held.inputs === inputs && previous === data.previous) return held.figures;
  const figures = figuresOf(data, brand);
  figuresBySide.set(data.current, {
    previous: data.previous && new WeakRef(data.previous),
    inputs,
    figures,
  });
  return figures;
}

export function presentAnalytics(data: WindowData, brand: Brand) {
  const { window } = data;
  const label = windowLabel(window);
  const figures = keptFigures(data, brand);
  return {
    window: {
      range: window.range,
      start: window.start.toISOString(),
      end: window.end.toISOString(),
      asOf: window.asOf.toISOString(),
      timezone: window.timezone,
      selection: window.selection,
      previous: window.previous && {
        start: window.previous.start.toISOString(),
        end: window.previous.end.toISOString(),
      },
      bounds: { earliestObservationAt: data.earliestObservationAt },
    },
    metrics: { scope: SCOPE, label, ...figures.metrics },
    shareOfVoice: { scope: SCOPE, label, ...figures.shareOfVoice },
    sources: figures.sources,
    platforms: { scope: SCOPE, label, ...figures.platforms },
    coverage: figures.coverage,
  };
}

export function presentDelta(delta: WindowedDelta) {
  return {
    latestScore: roundScore(delta.latestScore),
    boundaryScore: nullable(delta.boundaryScore, roundScore),
    delta: nullable(delta.delta, roundScore),
    asOfRunId: delta.asOfRunId,
    spanLabel: delta.spanLabel,
    suppressedReason: delta.suppressedReason,
    latestScoreInterval: delta.latestEstimate.interval,
    latestScoreIntervalReason: delta.latestEstimate.reason,
    significance: delta.significance,
  };
}

export function presentHistory(history: History, limit: number | null) {
  const points = thin(history.points, limit);
  return {
    points: points.map((p) => ({ date: p.scoredAt, score: roundScore(p.score), runId: p.runId })),
    windowedDelta: presentDelta(history.delta),
  };
}
