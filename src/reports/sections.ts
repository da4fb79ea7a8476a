// Building blocks the report types share: each turns one API block into a layout block. They
// choose and format figures; they never derive one the API does not serve.

import { defaultModelLabel } from '../domain/answer-line.ts';
import { quote } from '../domain/quote.ts';
import type { Recommendation } from '../serializers/recommendations.ts';
import type { Analytics, PromptChangeEntry, PromptChanges, ReportData, ScopeFigures } from './data.ts';
import type { Block, Card, Change, Kpi, TableCell, Tone } from './document.ts';
import * as f from './format.ts';

/** "vs the previous 30 days", why there is no comparison, or that the change is only noise. */
function comparedNote(reason: string | null, versus: string, significance: string | null = null): string {
  if (reason !== null) return f.suppressed(reason);
  return significance === 'within_noise' ? f.WITHIN_NOISE : versus;
}

export function previousPeriod(analytics: Analytics): string {
  const preset = analytics.window.range;
  return /^\d+d$/.test(preset) ? `vs the previous ${preset.slice(0, -1)} days` : 'vs the previous period';
}

/** Visibility score with its windowed delta, mention rate, average rank and samples analysed. */
export function headlineKpis(scope: ScopeFigures): Kpi[] {
  const { windowedDelta } = scope.scoreHistory;
  const { metrics, coverage } = scope.analytics;
  const versus = previousPeriod(scope.analytics);
  return [
    {
      label: 'Visibility score',
      // With no scored run at all the API's latestScore is 0 beside no_data: there is no score.
      value: f.score(windowedDelta.suppressedReason === 'no_data' ? null : windowedDelta.latestScore),
      ...(carriedForward(scope.scoreHistory)
        ? { change: null, note: 'no scored run in this window: the score of the last run before' }
        : {
            change: f.judged(f.scoreChange(windowedDelta.delta), windowedDelta.significance),
            note: comparedNote(
              windowedDelta.suppressedReason,
              spanPhrase(windowedDelta.spanLabel),
              windowedDelta.significance,
            ),
          }),
    },
    {
      label: 'Mention rate',
      value: f.percent(metrics.mentionRate.value),
      change: f.judged(f.rateChange(metrics.mentionRate.delta), metrics.mentionRate.significance),
      note: comparedNote(metrics.mentionRate.suppressedReason, versus, metrics.mentionRate.significance),
    },
    {
      label: 'Average rank',
      value: f.rank(metrics.avgRank.value),
      change: f.judged(f.rankChange(metrics.avgRank.delta), metrics.avgRank.significance),
      note: comparedNote(
        metrics.avgRank.suppressedReason,
        `${versus}; lower is better`,
        metrics.avgRank.significance,
      ),
    },
    {
      // Σ sampleCount: beside the answer counts of the engine and coverage tables (rows), it read
      // as a second, larger count of the same answers.
      label: 'Samples analysed',
      value: f.count(metrics.sampleCount),
      change: null,
      note:
        metrics.sampleCount === coverage.usableSampleCount
          ? 'one per usable answer in the window'
          : `the asks behind the window's ${f.counted(coverage.usableSampleCount, 'usable answer')} (an answer can stand for several)`,
    },
  ];
}

export function trendBlock(scope: ScopeFigures, timeZone: string, title = 'Visibility score trend'): Block {
  return {
    kind: 'trend',
    title,
    points: scope.scoreHistory.points.map((p) => ({ date: p.date, value: p.score })),
    empty: 'No scored runs in this window yet.',
    timeZone,
  };
}

export function sentimentBlock(analytics: Analytics): Block {
  const { positive, neutral, negative } = analytics.metrics.sentiment;
  return {
    kind: 'split',
    title: 'Sentiment when mentioned',
    segments: [
      { label: 'Positive', count: positive, tone: 'good' },
      { label: 'Neutral', count: neutral, tone: 'neutral' },
      { label: 'Negative', count: negative, tone: 'bad' },
    ],
    empty: 'No answer mentioned the brand in this window.',
  };
}

/**
 * The first `limit` entries with their places, the brand's own always among them: in place of the
 * last when it ranks lower (a brand eleventh of its category's names was left out of its own
 * report's table and bars).
 */
function topWithBrand<T extends { isUserBrand: boolean }>(
  entries: readonly T[],
  limit: number,
): { entry: T; place: number }[] {
  const top = entries.slice(0, limit).map((entry, i) => ({ entry, place: i + 1 }));
  const own = entries.findIndex((e) => e.isUserBrand);
  if (limit > 0 && own >= limit) top[limit - 1] = { entry: entries[own] as T, place: own + 1 };
  return top;
}

/** Share-of-voice bars of the visible entities, longest bar = the largest share. */
export function shareOfVoiceBars(analytics: Analytics, limit: number, title = 'Share of voice'): Block {
  const entries = topWithBrand(analytics.shareOfVoice.visible, limit).map(({ entry }) => entry);
  const largest = Math.max(0, ...entries.map((e) => e.share ?? 0));
  // A bar has room for its figure only: the words for a change within the noise go under the bars.
  const steady = entries.flatMap((e) => {
    const change = f.rateChange(e.shareDelta);
    return change && e.shareDeltaSignificance === 'within_noise' ? [`${e.name} (${change.text})`] : [];
  });
  return {
    kind: 'bars',
    title,
    bars: entries.map((e) => ({
      label: e.name,
      fraction: largest > 0 ? (e.share ?? 0) / largest : 0,
      valueText: f.percent(e.share),
      // A rival's gain is not "good" or "bad" in colour: only the brand's own bar is toned.
      change: tonedFor(f.judged(f.rateChange(e.shareDelta), e.shareDeltaSignificance), e.isUserBrand),
      highlight: e.isUserBrand,
    })),
    empty: 'No brand or competitor was mentioned in this window.',
    note: steady.length > 0 ? `Held steady — ${f.WITHIN_NOISE}: ${steady.join(', ')}.` : '',
  };
}

function tonedFor<T extends { tone: Tone }>(change: T | null, own: boolean): T | null {
  return change && !own ? { ...change, tone: 'neutral' } : change;
}

/** What the competitor table's Score is, beside the headline's visibility score of the same brand. */
export const COMPETITOR_SCORE_NOTE =
  'Score in this table weighs every answer of the window alike, for each name the same way, so ' +
  'names compare fairly; the visibility score above averages the brand’s prompts, each weighing ' +
  'the same, so the two differ.';

export function competitorTable(analytics: Analytics, limit: number): Block {
  return {
    kind: 'table',
    title: 'Where the brand stands against named competitors',
    columns: [
      { label: '#', align: 'right', weight: 0.5 },
      { label: 'Brand', align: 'left', weight: 3 },
      { label: 'Share of voice', align: 'right', weight: 1.6 },
      { label: 'Mentions', align: 'right', weight: 1.3 },
      { label: 'Average rank', align: 'right', weight: 1.5 },
      { label: 'Score', align: 'right', weight: 1 },
    ],
    rows: topWithBrand(analytics.shareOfVoice.visible, limit).map(({ entry: e, place }) => [
      { text: String(place) },
      { text: e.isUserBrand ? `${e.name} (you)` : e.name, strong: e.isUserBrand },
      { text: f.percent(e.share), strong: e.isUserBrand },
      { text: f.count(e.mentions) },
      { text: f.rank(e.averageRank) },
      { text: f.score(e.score) },
    ]),
    empty: 'No brand or competitor was mentioned in this window.',
  };
}

export function platformTable(analytics: Analytics): Block {
  return {
    kind: 'table',
    title: 'By answer engine',
    columns: [
      { label: 'Answer engine', align: 'left', weight: 2.4 },
      { label: 'Score', align: 'right', weight: 1.1 },
      { label: 'Mention rate', align: 'right', weight: 1.6 },
      { label: 'Answers', align: 'right', weight: 1.3 },
    ],
    rows: analytics.platforms.apiPlatforms.map((p) => [
      { text: p.modelLabel, strong: true },
      { text: f.score(p.score) },
      { text: f.percent(p.mentionRate) },
      { text: f.count(p.totalAnswers) },
    ]),
    empty: 'No answers in this window.',
  };
}

export function surfaceTable(analytics: Analytics): Block {
  return {
    kind: 'table',
    title: 'By surface (how the answer was obtained)',
    columns: [
      { label: 'Surface', align: 'left', weight: 3 },
      { label: 'Score', align: 'right', weight: 1 },
      { label: 'Mention rate', align: 'right', weight: 1.4 },
      { label: 'Samples', align: 'right', weight: 1.2 },
    ],
    rows: analytics.platforms.surfacePlatforms.map((p) => [
      { text: p.surfaceLabel, strong: true },
      { text: f.score(p.score) },
      { text: f.percent(p.mentionRate) },
      { text: f.count(p.totalSamples) },
    ]),
    empty: 'No answers in this window.',
  };
}

export function sourcesTable(analytics: Analytics, limit: number): Block {
  const { totalCitations, totalDomains } = analytics.sources;
  return {
    kind: 'table',
    title: `Top cited sources (${f.counted(totalCitations, 'citation')} of ${f.counted(totalDomains, 'domain')})`,
    columns: [
      { label: 'Domain', align: 'left', weight: 2.6 },
      { label: 'Citations', align: 'right', weight: 1.1 },
      { label: 'URLs', align: 'right', weight: 0.9 },
      { label: 'Share', align: 'right', weight: 1.1 },
      { label: 'Change', align: 'right', weight: 2.1 },
    ],
    rows: analytics.sources.items.slice(0, limit).map((s) => {
      const change = f.worded(f.rateChange(s.shareDelta), s.shareDeltaSignificance);
      return [
        { text: s.domain, strong: true },
        { text: f.count(s.count) },
        { text: f.count(s.urlCount) },
        { text: f.percent(s.share) },
        // A suppressed change is a dash here; the reason is spelled out where there is room for it.
        { text: change ? change.text : '–' },
      ] satisfies TableCell[];
    }),
    empty: 'No answer cited a source in this window.',
  };
}

/** Which answers the figures rest on and which were left out, and why (the API's coverage block). */
export function coverageTable(analytics: Analytics): Block {
  const c = analytics.coverage;
  const row = (label: string, value: number): TableCell[] => [{ text: label }, { text: f.count(value) }];
  return {
    kind: 'table',
    title: 'Answers behind these figures',
    columns: [
      { label: 'Answers', align: 'left', weight: 4 },
      { label: 'Count', align: 'right', weight: 1 },
    ],
    rows: [
      [
        { text: 'Usable answers (the figures rest on these)', strong: true },
        { text: f.count(c.usableSampleCount), strong: true },
      ],
      row('of which older-methodology answers used as a fallback', c.legacyFallbackCount),
      row('Left out: the answer engine returned an error', c.excludedErrorCount),
      row('Left out: the answer was empty', c.excludedEmptyCount),
      row('Left out: the engine showed no answer', c.excludedNoResultCount),
      row('Left out: superseded by current-methodology answers', c.excludedMethodologyCount),
      row('Left out: older answers without mention data', c.unreconstructableLegacyAnswerCount),
      row('Prompts with usable answers', c.promptCoverageCount),
    ],
    empty: '',
  };
}

/** Domains cited in this window that the previous window did not cite at all. */
export function newSources(analytics: Analytics) {
  return analytics.sources.items.filter((s) => s.previousShare === 0 || s.previousShare === null);
}

// An engine without answers in the window is not among its platforms: it still has its name.
function modelLabel(data: ReportData, model: string): string {
  return (
    data.scope.analytics.platforms.apiPlatforms.find((p) => p.model === model)?.modelLabel ??
    defaultModelLabel(model)
  );
}

/** One change-feed entry in words, e.g. "ChatGPT started mentioning the brand". */
export function describeChange(data: ReportData, entry: PromptChangeEntry): Change {
  switch (entry.kind) {
    case 'model_mention':
      return {
        text: `${modelLabel(data, entry.model)} ${entry.direction} mentioning ${data.brand.name}`,
        tone: entry.direction === 'started' ? 'good' : 'bad',
      };
    case 'rank':
      return {
        text: `Rank ${entry.from} → ${entry.to} (${entry.direction})`,
        tone: entry.direction === 'improved' ? 'good' : 'bad',
      };
    case 'competitor':
      return {
        text: `${entry.name} ${entry.direction}`,
        tone: entry.direction === 'disappeared' ? 'good' : 'bad',
      };
    case 'sentiment':
      return { text: `Sentiment ${entry.from} → ${entry.to}`, tone: 'neutral' };
  }
}

export function promptChangesTable(data: ReportData, feeds: readonly PromptChanges[]): Block {
  const rows: TableCell[][] = feeds.map((feed) => [
    { text: feed.promptText, strong: true },
    { text: feed.categoryName },
    { lines: feed.changes.map((entry) => describeChange(data, entry)) },
  ]);
  return {
    kind: 'table',
    title: 'Latest run against the one before, per prompt',
    columns: [
      { label: 'Prompt', align: 'left', weight: 3.2 },
      { label: 'Category', align: 'left', weight: 1.6 },
      { label: 'Change', align: 'left', weight: 3 },
    ],
    rows,
    empty: 'No prompt changed between its last two runs.',
  };
}

/** The feeds that have something to say. */
export function changedPrompts(data: ReportData): PromptChanges[] {
  return data.promptChanges.filter((feed) => feed.changes.length > 0);
}

/**
 * "rose 13.48 pts", "fell 9.57 pts" or "held steady", from a formatted signed change; a change the
 * API judged within the sampling noise held steady too, with its figure beside it.
 */
function moved(delta: number, change: Change | null, significance: string | null): string {
  if (delta === 0 || !change) return 'held steady';
  if (significance === 'within_noise') return f.heldSteady(change.text);
  return `${delta > 0 ? 'rose' : 'fell'} ${change.text.replace(/^[+-]/, '')}`;
}

// A prompt quoted in a sentence is cut to this many characters: what the sentence says of it
// comes after the quote (the prompt-changes table shows it whole).
const QUOTED_PROMPT = 100;

/** Headline movements, each sentence quoting API figures only. */
export function whatChanged(data: ReportData, limit: number): string[] {
  const { analytics, scoreHistory } = data.scope;
  const versus = previousPeriod(analytics);
  const lines: string[] = [];
  const { windowedDelta } = scoreHistory;
  if (carriedForward(scoreHistory)) {
    lines.push(
      `No scored run ${inSpan(windowedDelta.spanLabel)}: the visibility score is still ` +
        `${f.score(windowedDelta.latestScore)}, from the last run before.`,
    );
  } else if (windowedDelta.delta !== null) {
    lines.push(
      `Visibility score ${moved(windowedDelta.delta, f.scoreChange(windowedDelta.delta), windowedDelta.significance)} ` +
        `${spanPhrase(windowedDelta.spanLabel)}, from ${f.score(windowedDelta.boundaryScore)} to ` +
        `${f.score(windowedDelta.latestScore)}.`,
    );
  }
  const { mentionRate } = analytics.metrics;
  if (mentionRate.delta !== null) {
    lines.push(
      `Mention rate ${moved(mentionRate.delta, f.rateChange(mentionRate.delta), mentionRate.significance)} ${versus}, ` +
        `from ${f.percent(mentionRate.previousValue)} to ${f.percent(mentionRate.value)}.`,
    );
  }
  const movers = analytics.shareOfVoice.visible
    .filter((e) => e.shareDelta !== null && e.shareDelta !== 0)
    .sort((a, b) => Math.abs(b.shareDelta ?? 0) - Math.abs(a.shareDelta ?? 0))
    .slice(0, 2);
  for (const e of movers) {
    const delta = e.shareDelta ?? 0;
    lines.push(
      `${e.isUserBrand ? `${e.name} (you)` : e.name}: share of voice ` +
        `${moved(delta, f.rateChange(delta), e.shareDeltaSignificance)} ` +
        `to ${f.percent(e.share)}.`,
    );
  }
  const fresh = newSources(analytics).slice(0, 3);
  if (fresh.length > 0) lines.push(`Newly cited sources: ${fresh.map((x) => x.domain).join(', ')}.`);
  // Sentences about the window: a prompt whose latest run came before it changed then, not in it
  // (the in-depth report's prompt-changes table lists those).
  const { start } = analytics.window;
  for (const feed of changedPrompts(data).filter((f) => f.latestRunAt !== null && f.latestRunAt >= start)) {
    const first = feed.changes[0];
    if (first)
      lines.push(`${quote(feed.promptText, QUOTED_PROMPT, '…')}: ${describeChange(data, first).text}.`);
  }
  return lines.length > 0 ? lines.slice(0, limit) : ['No measurable change against the previous period.'];
}

/**
 * No scored run in the window, and a score the API carries forward from the last run before it:
 * "held steady from 17.5 to 17.5" would report as news what is only the lack of any.
 */
function carriedForward(scoreHistory: ScopeFigures['scoreHistory']): boolean {
  return scoreHistory.points.length === 0 && scoreHistory.windowedDelta.delta !== null;
}

/** The span as "over the last 30 days", "since 2026-01-01" or "from 2026-01-01 to 2026-01-31". */
const inSpan = (spanLabel: string) => {
  const phrase = spanPhrase(spanLabel);
  return /^\d/.test(phrase) ? `from ${phrase}` : phrase;
};

/** A windowed delta's span in words: "30d" → "over the last 30 days". */
export function spanPhrase(spanLabel: string): string {
  const days = /^(\d+)d$/.exec(spanLabel);
  if (days) return `over the last ${days[1]} days`;
  return spanLabel === 'all time' ? 'since the first run' : spanLabel;
}

const PRIORITY_TONE: Record<string, Tone> = { high: 'bad', medium: 'neutral', low: 'good' };

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20)).trimEnd()}…`;
}

// What an outcome's notes say for the API's reader: its windows as the query that reproduces them,
// the other recommendations by id. A report's reader gets the days and how many.
const WINDOW_QUERY = /range=custom&start=(\d{4}-\d{2}-\d{2})&end=(\d{4}-\d{2}-\d{2})/g;
const ID_LIST =
  /: ([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}(?:, [0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})*)\./g;

const calendarDay = (day: string) => f.date(`${day}T12:00:00.000Z`, 'UTC');

function readableNotes(notes: string): string {
  return notes
    .replace(WINDOW_QUERY, (_, start: string, end: string) => `${calendarDay(start)} – ${calendarDay(end)}`)
    .replace(ID_LIST, (_, ids: string) => `: ${f.counted(ids.split(', ').length, 'other recommendation')}.`);
}

/**
 * A recommendation as a card. `evidence` adds its measurement plan, scoring, generated artifacts
 * and measured outcomes; without it the card is the short form (rationale clipped) for summaries.
 */
export function recommendationCard(rec: Recommendation, evidence: boolean): Block {
  const lines: Card['lines'] = [
    { label: 'Why', text: evidence ? rec.why : clip(rec.why, 220) },
    { label: 'Action', text: evidence ? rec.suggestedAction : clip(rec.suggestedAction, 200) },
    { label: 'Expected impact', text: evidence ? rec.expectedImpact : clip(rec.expectedImpact, 160) },
  ];
  if (evidence) {
    const { impact, effort, confidence } = rec.scoreBreakdown;
    lines.push({ label: 'Measurement', text: rec.measurementPlan });
    lines.push({
      label: 'Scoring',
      text: `score ${rec.score} (impact ${impact}, effort ${effort}, confidence ${confidence})`,
    });
    for (const artifact of rec.artifacts) {
      lines.push({
        label: 'Artifact',
        text: `${artifact.title} (${artifact.artifactType}, ${artifact.status})`,
      });
    }
    for (const outcome of rec.outcomes) {
      const subject = outcome.metricSubject ? ` (${outcome.metricSubject})` : '';
      lines.push({
        label: 'Outcome',
        text:
          `${outcome.metricName}${subject}: ${outcome.baselineValue} → ${outcome.currentValue} ` +
          `over ${outcome.measurementWindowDays} days, ${outcome.attributionConfidence} confidence` +
          (outcome.isMeasured ? '' : ' (not yet measured)'),
      });
      // The windows and their sample sizes: a side without samples records 0, which the notes
      // say stands for none (an average rank of 0 read as better than first).
      if (outcome.notes !== '') lines.push({ label: 'Measured', text: readableNotes(outcome.notes) });
    }
  }
  return {
    kind: 'card',
    card: {
      title: rec.title,
      tag: `${rec.priority} priority · ${rec.status.replace(/_/g, ' ')}`,
      tagTone: PRIORITY_TONE[rec.priority] ?? 'neutral',
      lines: lines.filter((line) => line.text !== ''),
    },
  };
}

export function recommendationBlocks(data: ReportData, limit: number, evidence: boolean): Block[] {
  const recs = data.recommendations.slice(0, limit);
  // Recommendations keep no history: a report over a window that closed before it was made lists
  // the ones open when it was made, and says so rather than pass them off as the window's.
  const { range, end, asOf } = data.scope.analytics.window;
  const timeZone = data.organization.timezone;
  const closed: Block[] =
    range === 'custom' && Date.parse(end) < Date.parse(asOf)
      ? [
          {
            kind: 'paragraph',
            text:
              `As they stood on ${f.date(asOf, timeZone)}, when this report was made; this window closed on ` +
              `${f.date(f.lastMomentOf(end), timeZone)}.`,
            muted: true,
          },
        ]
      : [];
  if (recs.length === 0)
    return [...closed, { kind: 'paragraph', text: 'No open recommendations right now.', muted: true }];
  return [...closed, ...recs.map((rec) => recommendationCard(rec, evidence))];
}
