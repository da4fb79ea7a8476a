// Suppressed deltas (api.md "Suppressed deltas"; decisions.md "Windows and deltas"): when there
// is nothing meaningful to compare with, a delta is null and says why, instead of pretending 0.

export const SUPPRESSED_REASONS = ['no_data', 'no_prior', 'no_boundary', 'cross_era'] as const;
export type SuppressedReason = (typeof SUPPRESSED_REASONS)[number];

export interface Delta {
  /** current − compared, unrounded; null exactly when suppressedReason is set. */
  delta: number | null;
  suppressedReason: SuppressedReason | null;
}

export interface Checks {
  /**
   * The compared side has nothing at all. Defaults to "the compared value is missing"; windowed
   * deltas pass it explicitly, because for them a missing boundary is its own reason.
   */
  noPrior?: boolean;
  /** Windowed deltas: no scored run at or before the window start. */
  noBoundary?: boolean;
  /** The compared side rests on legacy observations while the current side does not. */
  crossEra?: boolean;
}

/**
 * current − compared, or the first reason that applies, in this order: no_data (the current side
 * has nothing), no_prior, no_boundary, cross_era. An unsuppressed delta of 0 stays 0.
 */
export function compare(current: number | null, compared: number | null, checks: Checks = {}): Delta {
  const reason: SuppressedReason | null =
    current === null
      ? 'no_data'
      : (checks.noPrior ?? compared === null)
        ? 'no_prior'
        : checks.noBoundary
          ? 'no_boundary'
          : checks.crossEra
            ? 'cross_era'
            : compared === null
              ? 'no_prior'
              : null;
  if (reason !== null || current === null || compared === null)
    return { delta: null, suppressedReason: reason };
  return { delta: current - compared, suppressedReason: null };
}
