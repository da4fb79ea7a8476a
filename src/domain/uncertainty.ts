import type { SuppressedReason } from './deltas.ts';

// Numbers with their uncertainty (methodology.md "Uncertainty"). Pure: callers pass per-prompt
// sums, because answers to the same prompt tend to agree, so prompts (not answers) are the
// independent units a 95 % interval has to count.

/** Fewer prompts with data than this give no interval: their spread says too little to trust. */
export const MIN_PROMPTS = 3;

/**
 * The intra-prompt correlation assumed where the data cannot show it: at 0 % or 100 %, and when
 * planning. No published figure exists for brand mentions; prompt-level mention rates spread
 * evenly over 0–100 % give 1/3 (var = 1/12 over p(1 − p) = 1/4), and we round down to 0.3.
 * observedIcc measures it on real data.
 */
export const ASSUMED_ICC = 0.3;

/** Φ⁻¹(0.975): the normal quantile of a two-sided 95 % interval. */
const Z = 1.959963984540054;

/** The half-width a plan aims for: ±10 points of mention rate. */
export const TARGET_HALF_WIDTH = 0.1;

/**
 * When ±10 points is out of reach, more samples per ask stop paying once the half-width is
 * within this much (1 point) of the best that unlimited samples could give.
 */
export const WORTHWHILE_GAIN = 0.01;

/** One prompt's sums in a window, e.g. mentioned weight over total weight. */
export interface PromptSums {
  numerator: number;
  denominator: number;
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * Why a figure has no interval: no_data (no weight at all), too_few_prompts (fewer than
 * MIN_PROMPTS prompts with data), no_spread (an average rank on which every prompt agrees exactly:
 * its spread cannot be estimated from the data, and a zero-width band would be a false claim).
 */
export const NO_INTERVAL_REASONS = ['no_data', 'too_few_prompts', 'no_spread'] as const;
export type NoIntervalReason = (typeof NO_INTERVAL_REASONS)[number];

export interface Estimate {
  /** The figure in its served unit (fraction, rank, 0–100 score), unrounded; null without data. */
  value: number | null;
  /** The 95 % interval, rounded outward to the value's decimals; null exactly when reason is set. */
  interval: Interval | null;
  reason: NoIntervalReason | null;
  /** The interval unrounded: what significance compares. */
  limits: Interval | null;
}

export const SIGNIFICANCES = ['moved', 'within_noise'] as const;
export type Significance = (typeof SIGNIFICANCES)[number];

// ---- Student's t ----

/** P(|T| ≤ t) for integer degrees of freedom: the finite series of Abramowitz & Stegun 26.7.3–4. */
function tTwoSided(t: number, df: number): number {
  const theta = Math.atan(t / Math.sqrt(df));
  const cos2 = Math.cos(theta) ** 2;
  const sin = Math.sin(theta);
  if (df % 2 === 0) {
    let term = 1;
    let sum = 1;
    for (let j = 2; j <= df - 2; j += 2) {
      term *= (cos2 * (j - 1)) / j;
      sum += term;
    }
    return sin * sum;
  }
  if (df === 1) return (2 * theta) / Math.PI;
  let term = Math.cos(theta);
  let sum = term;
  for (let j = 3; j <= df - 2; j += 2) {
    term *= (cos2 * (j - 1)) / j;
    sum += term;
  }
  return (2 / Math.PI) * (theta + sin * sum);
}

const criticals = new Map<number, number>();

/**
 * The two-sided 95 % critical value of Student's t with df (a positive integer) degrees of
 * freedom, e.g. 4.3027 for 2. The closed-form distribution is inverted by bisection to full
 * double precision; the only library offering it pulls in over 200 packages.
 */
export function tCritical(df: number): number {
  // Every interval of an answer asks for it (a brand's analytics, hundreds of times) with the same
  // few df: the bisection is kept per df. df is a count of prompts, so the map stays small.
  let critical = criticals.get(df);
  if (critical === undefined) {
    critical = bisectCritical(df);
    if (criticals.size >= 4096) criticals.clear();
    criticals.set(df, critical);
  }
  return critical;
}

function bisectCritical(df: number): number {
  let low = Z;
  let high = 2 * Z;
  while (tTwoSided(high, df) < 0.95) high *= 2;
  while (high - low > 1e-12 * high) {
    const middle = (low + high) / 2;
    if (tTwoSided(middle, df) < 0.95) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/**
 * Korn & Graubard's degrees-of-freedom adjustment: an effective sample size times (z / t)² makes
 * a z-based interval as wide as the t-based one that few prompts call for.
 */
const dfFactor = (prompts: number) => (Z / tCritical(prompts - 1)) ** 2;

// ---- Intervals ----

/** Wilson's score interval: stays inside [0, 1] and is not degenerate at 0 or 1. */
function wilson(p: number, n: number): Interval {
  const z2 = Z * Z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

interface RatioSpread {
  value: number;
  /** Prompts with a positive denominator: the clusters. */
  prompts: number;
  /** Σ denominator. */
  total: number;
  /** Linearised (Taylor) cluster-robust variance of the ratio, with the k/(k−1) correction. */
  variance: number;
  used: PromptSums[];
}

function ratioSpread(prompts: readonly PromptSums[]): RatioSpread | null {
  const used = prompts.filter((p) => p.denominator > 0);
  let numerator = 0;
  let total = 0;
  for (const p of used) {
    numerator += p.numerator;
    total += p.denominator;
  }
  if (total === 0) return null;
  const value = numerator / total;
  const k = used.length;
  let squares = 0;
  for (const p of used) squares += (p.numerator - value * p.denominator) ** 2;
  const variance = k > 1 ? ((k / (k - 1)) * squares) / (total * total) : Number.NaN;
  return { value, prompts: k, total, variance, used };
}

/** Washes binary noise (0.3·10⁴ = 2999.9999…) the way roundTo does, then rounds one way. */
const wash = (x: number) => Number(x.toPrecision(12));

/** Low rounded down, high rounded up: the served band still contains the served value. */
function outward(limits: Interval, decimals: number): Interval {
  const factor = 10 ** decimals;
  return {
    low: Math.floor(wash(limits.low * factor)) / factor || 0,
    high: Math.ceil(wash(limits.high * factor)) / factor || 0,
  };
}

const none = (value: number | null, reason: NoIntervalReason): Estimate => ({
  value,
  interval: null,
  reason,
  limits: null,
});

function estimate(value: number, limits: Interval, decimals: number): Estimate {
  return { value, interval: outward(limits, decimals), reason: null, limits };
}

/**
 * A proportion's Wilson interval with the design effect of prompt clustering. `trials` is what a
 * simple binomial sample would count (its variance p(1 − p) / trials); the design effect is the
 * cluster-robust variance over that, never below 1; at 0 % and 100 % the data show no spread, so
 * the assumed correlation stands in: 1 + (trials per prompt − 1) · ASSUMED_ICC.
 */
function proportionLimits(spread: RatioSpread, trials: number): Interval {
  const { value: p, prompts: k, variance } = spread;
  const binomial = (p * (1 - p)) / trials;
  const designEffect =
    binomial > 0 ? Math.max(1, variance / binomial) : 1 + Math.max(0, trials / k - 1) * ASSUMED_ICC;
  return wilson(p, (trials / designEffect) * dfFactor(k));
}

function proportionEstimate(
  prompts: readonly PromptSums[],
  trialsOf: (spread: RatioSpread) => number,
  scale: number,
  decimals: number,
): Estimate {
  const spread = ratioSpread(prompts);
  if (!spread) return none(null, 'no_data');
  const value = spread.value * scale;
  if (spread.prompts < MIN_PROMPTS) return none(value, 'too_few_prompts');
  const limits = proportionLimits(spread, trialsOf(spread));
  return estimate(value, { low: limits.low * scale, high: limits.high * scale }, decimals);
}

/**
 * A rate or a share (Σ numerator / Σ denominator over prompts, 4 decimals): the mention rate
 * (mentioned weight / weight), a platform's mention rate (its answers only), an entity's share of
 * voice (its mentions / all entities' mentions) or a source's share (its citations / all).
 */
export function proportionInterval(prompts: readonly PromptSums[]): Estimate {
  return proportionEstimate(prompts, (s) => s.total, 1, 4);
}

/**
 * A rate about one subject too narrow to cluster (one prompt's answers, one engine's mentions, the
 * citations of some answers): Wilson's interval over its samples, 4 decimals. Across prompts the
 * prompt is the unit (proportionInterval); within one prompt its answers are the engine's repeated
 * draws, so they are the units. Recommendations rest their confidence on it where the prompt-
 * clustered interval has too few prompts (docs/recommendations.md).
 */
export function sampleProportionInterval(numerator: number, denominator: number): Estimate {
  if (denominator <= 0) return none(null, 'no_data');
  const value = numerator / denominator;
  return estimate(value, wilson(value, denominator), 4);
}

/**
 * A pooled score, 100 · Σ w·v / Σ w with v in [0, 1] (numerator Σ w·v, denominator Σ w per
 * prompt), 1 decimal. The binomial reference treats v as 0 or 1, the widest a [0, 1] value can
 * spread, so the floor of the design effect errs wide, never narrow.
 */
export function scoreInterval(prompts: readonly PromptSums[]): Estimate {
  return proportionEstimate(prompts, (s) => s.total, 100, 1);
}

/** One prompt's score (0–100) in a run, and the samples it rests on. */
export interface PromptScore {
  score: number;
  samples: number;
}

/**
 * A brand or category score as of a run (the windowed delta's latestScore): the mean of prompt
 * scores, each prompt counting once. A simple sample of the same design would have variance
 * p(1 − p) · Σ(1 / samples) / k², so that is its binomial reference: trials = k² / Σ(1 / samples).
 */
export function promptMeanScoreInterval(prompts: readonly PromptScore[]): Estimate {
  const scored = prompts.filter((p) => p.samples > 0);
  let inverseSamples = 0;
  for (const p of scored) inverseSamples += 1 / p.samples;
  return proportionEstimate(
    scored.map((p) => ({ numerator: p.score / 100, denominator: 1 })),
    (s) => (s.prompts * s.prompts) / inverseSamples,
    100,
    1,
  );
}

/**
 * An average rank (Σ w·rank / Σ w over ranked mentions, per prompt), 2 decimals: value ± t(k−1) ·
 * cluster-robust standard error, never below rank 1.
 */
export function rankInterval(prompts: readonly PromptSums[]): Estimate {
  const spread = ratioSpread(prompts);
  if (!spread) return none(null, 'no_data');
  const { value, prompts: k, variance, used } = spread;
  if (k < MIN_PROMPTS) return none(value, 'too_few_prompts');
  if (used.every((p) => wash(p.numerator / p.denominator) === wash(value))) return none(value, 'no_spread');
  const half = tCritical(k - 1) * Math.sqrt(variance);
  return estimate(value, { low: Math.max(1, value - half), high: value + half }, 2);
}

// ---- Significance ----

/**
 * Whether a change stands out from sampling noise: 'moved' when the 95 % interval of current −
 * previous excludes 0, else 'within_noise'; null when the delta is suppressed. The difference's
 * interval combines the two windows' own intervals (Newcombe's method 10, the MOVER of Zou &
 * Donner), so it inherits their clustering and their behaviour at 0 % and 100 %; it treats the
 * windows as independent, which errs towards within_noise when the same prompts run in both. A
 * side with no interval (too few prompts, no spread) cannot show a move: within_noise.
 */
export function significance(
  current: Estimate,
  previous: Estimate | null,
  suppressedReason: SuppressedReason | null,
): Significance | null {
  if (suppressedReason !== null || previous === null) return null;
  const now = current.limits;
  const before = previous.limits;
  if (current.value === null || previous.value === null || !now || !before) return 'within_noise';
  const difference = current.value - previous.value;
  const low = difference - Math.hypot(current.value - now.low, before.high - previous.value);
  const high = difference + Math.hypot(now.high - current.value, previous.value - before.low);
  return low > 0 || high < 0 ? 'moved' : 'within_noise';
}

/**
 * The intra-prompt correlation a window shows, for calibrating ASSUMED_ICC: (design effect − 1) /
 * (answers per prompt − 1), the moment estimate of Kish's deff = 1 + (m − 1)·ρ. Null when it
 * cannot be estimated (no interval, a rate at 0 % or 100 %, one answer per prompt).
 */
export function observedIcc(prompts: readonly PromptSums[]): number | null {
  const spread = ratioSpread(prompts);
  if (!spread || spread.prompts < MIN_PROMPTS) return null;
  const { value: p, total, prompts: k, variance } = spread;
  const perPrompt = total / k;
  if (p <= 0 || p >= 1 || perPrompt <= 1) return null;
  return Math.max(0, (variance / ((p * (1 - p)) / total) - 1) / (perPrompt - 1));
}

// ---- Planning ----

export type Cadence = 'daily' | 'weekly';

/** The windows a plan reports on, in days. */
export const PLAN_WINDOWS = [7, 30, 90] as const;

/** Runs of a cadence that fall inside a window of `days` days. */
export function runsInWindow(cadence: Cadence, days: number): number {
  return cadence === 'daily' ? days : Math.floor(days / 7);
}

/**
 * The effective sample size of a mention rate over `prompts` prompts with `perPrompt` samples
 * each, as the interval will count it: Kish's design effect 1 + (m − 1)·ρ, then the degrees-of-
 * freedom factor.
 */
function plannedEffective(prompts: number, perPrompt: number, icc: number): number {
  return ((prompts * perPrompt) / (1 + (perPrompt - 1) * icc)) * dfFactor(prompts);
}

/** Wilson's half-width at p = ½ simplifies to z / (2·√(n + z²)). */
const halfWidthAtHalf = (effective: number) => Z / (2 * Math.sqrt(effective + Z * Z));

/**
 * The expected half-width of a mention-rate interval at 50 % (the widest case) with `perPrompt`
 * samples of each of `prompts` prompts; null when no interval would be served.
 */
export function plannedHalfWidth(prompts: number, perPrompt: number, icc = ASSUMED_ICC): number | null {
  if (prompts < MIN_PROMPTS || perPrompt <= 0) return null;
  return halfWidthAtHalf(plannedEffective(prompts, perPrompt, icc));
}

/**
 * The fewest samples per ask for a half-width at 50 % of at most `halfWidth`, given the prompts
 * and the runs in the window; null when no number of samples reaches it (only more prompts can:
 * with correlation ρ each prompt is worth at most 1/ρ samples).
 */
export function samplesPerAskFor(
  prompts: number,
  runs: number,
  halfWidth: number,
  icc = ASSUMED_ICC,
): number | null {
  if (prompts < MIN_PROMPTS || runs <= 0) return null;
  // Solve c·P·m / (1 + (m − 1)·ρ) ≥ n for m, where n is the effective size giving that half-width.
  const needed = (Z / (2 * halfWidth)) ** 2 - Z * Z;
  const capacity = dfFactor(prompts) * prompts - needed * icc;
  if (capacity <= 0) return null;
  const perPrompt = Math.max(1, Math.ceil(wash((needed * (1 - icc)) / capacity)));
  return Math.ceil(perPrompt / runs);
}

/**
 * The default samples per ask of one engine for a brand: the fewest that give ±10 points over 30
 * days, or, when the prompts are too few for that, the fewest that come within WORTHWHILE_GAIN of
 * what unlimited samples would give (1/ρ samples' worth per prompt).
 */
export function defaultSamplesPerAsk(prompts: number, cadence: Cadence, icc = ASSUMED_ICC): number | null {
  const runs = runsInWindow(cadence, 30);
  const enough = samplesPerAskFor(prompts, runs, TARGET_HALF_WIDTH, icc);
  if (enough !== null || prompts < MIN_PROMPTS) return enough;
  const best = halfWidthAtHalf((prompts / icc) * dfFactor(prompts));
  return samplesPerAskFor(prompts, runs, best + WORTHWHILE_GAIN, icc);
}

export interface EngineMonitoring {
  engine: string;
  cadence: Cadence;
  samplesPerAsk: number;
}

export interface WindowPlan {
  days: number;
  runs: number;
  /** Samples of the engine over the window: prompts × runs × samples per ask. */
  samples: number;
  /** Expected half-width of the engine's mention-rate interval at 50 %; null when none is served. */
  halfWidth: number | null;
  /** Samples per ask that ±10 points would need; null when out of reach. */
  samplesPerAskForTarget: number | null;
}

export interface EnginePlan extends EngineMonitoring {
  windows: WindowPlan[];
}

/** `sightline monitor plan`: for each engine, what its cadence and samples buy over 7, 30 and 90 days. */
export function monitorPlan(
  prompts: number,
  engines: readonly EngineMonitoring[],
  icc = ASSUMED_ICC,
): EnginePlan[] {
  return engines.map((e) => ({
    ...e,
    windows: PLAN_WINDOWS.map((days): WindowPlan => {
      const runs = runsInWindow(e.cadence, days);
      return {
        days,
        runs,
        samples: prompts * runs * e.samplesPerAsk,
        halfWidth: plannedHalfWidth(prompts, runs * e.samplesPerAsk, icc),
        samplesPerAskForTarget: samplesPerAskFor(prompts, runs, TARGET_HALF_WIDTH, icc),
      };
    }),
  }));
}
