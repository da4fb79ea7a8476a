import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHistory, parseRange, startingAt, type Window } from '../src/domain/windows.ts';

const NOW = new Date('2026-03-15T12:00:00.000Z');

function window(parsed: ReturnType<typeof parseRange>): Window {
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.value;
}

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

describe('rolling presets', () => {
  it('defaults to 30 days ending now, with the 30 days before as the comparison window', () => {
    const w = window(parseRange({}, NOW, 'UTC'));
    assert.equal(w.range, '30d');
    // 2026-03-15T12:00Z − 30 × 24 h = 2026-02-13T12:00Z; previous: 2026-01-14T12:00Z → 2026-02-13T12:00Z.
    assert.equal(iso(w.start), '2026-02-13T12:00:00.000Z');
    assert.equal(iso(w.end), '2026-03-15T12:00:00.000Z');
    assert.equal(iso(w.asOf), '2026-03-15T12:00:00.000Z');
    assert.deepEqual(
      { start: iso(w.previous?.start), end: iso(w.previous?.end) },
      { start: '2026-01-14T12:00:00.000Z', end: '2026-02-13T12:00:00.000Z' },
    );
    assert.deepEqual(w.selection, {
      kind: 'rolling',
      preset: '30d',
      startDate: '2026-02-13',
      endDate: '2026-03-15',
    });
    assert.equal(w.spanLabel, '30d');
  });

  it('7d and 90d are N × 24 hours before now', () => {
    assert.equal(iso(window(parseRange({ range: '7d' }, NOW, 'UTC')).start), '2026-03-08T12:00:00.000Z');
    // 90 days before 2026-03-15: 15 (March) + 28 (February) + 31 (January) + 16 = 2025-12-15.
    assert.equal(iso(window(parseRange({ range: '90d' }, NOW, 'UTC')).start), '2025-12-15T12:00:00.000Z');
  });

  it('states the inclusive dates in the organization’s timezone', () => {
    // 12:00Z is 01:00 the next day in Auckland (UTC+13 in March).
    const w = window(parseRange({ range: '7d' }, NOW, 'Pacific/Auckland'));
    assert.deepEqual(w.selection, {
      kind: 'rolling',
      preset: '7d',
      startDate: '2026-03-09',
      endDate: '2026-03-16',
    });
    assert.equal(w.timezone, 'Pacific/Auckland');
  });
});

describe('all', () => {
  it('has no comparison window and starts at the earliest observation once known', () => {
    const w = window(parseRange({ range: 'all' }, NOW, 'UTC'));
    assert.equal(w.start, null);
    assert.equal(w.previous, null);
    assert.equal(w.spanLabel, 'all time');
    const started = startingAt(w, new Date('2025-06-01T08:00:00.000Z'));
    assert.equal(iso(started.start), '2025-06-01T08:00:00.000Z');
    assert.equal(started.selection.startDate, '2025-06-01');
    assert.equal(iso(startingAt(w, null).start), iso(NOW));
    assert.equal(startingAt(w, null).selection.startDate, null);
  });
});

describe('custom ranges', () => {
  it('run from start 00:00 to end 24:00, with as many days before as the comparison window', () => {
    const w = window(parseRange({ range: 'custom', start: '2026-03-01', end: '2026-03-10' }, NOW, 'UTC'));
    assert.equal(iso(w.start), '2026-03-01T00:00:00.000Z');
    assert.equal(iso(w.end), '2026-03-11T00:00:00.000Z');
    // 10 days: previous = 2026-02-19 00:00 → 2026-03-01 00:00 (February has 28 days in 2026).
    assert.equal(iso(w.previous?.start), '2026-02-19T00:00:00.000Z');
    assert.equal(iso(w.previous?.end), '2026-03-01T00:00:00.000Z');
    assert.deepEqual(w.selection, {
      kind: 'custom',
      preset: null,
      startDate: '2026-03-01',
      endDate: '2026-03-10',
    });
    assert.equal(w.spanLabel, '2026-03-01 to 2026-03-10');
  });

  it('follow the organization’s clock across a daylight-saving change', () => {
    // Berlin moves from UTC+1 to UTC+2 at 02:00 on 2024-03-31. 30 March 00:00 CET = 29 March
    // 23:00Z; 1 April 00:00 CEST = 31 March 22:00Z: the two days last 47 hours, not 48.
    const w = window(
      parseRange({ range: 'custom', start: '2024-03-30', end: '2024-03-31' }, NOW, 'Europe/Berlin'),
    );
    assert.equal(iso(w.start), '2024-03-29T23:00:00.000Z');
    assert.equal(iso(w.end), '2024-03-31T22:00:00.000Z');
    // The two days before: 28 March 00:00 CET = 27 March 23:00Z.
    assert.equal(iso(w.previous?.start), '2024-03-27T23:00:00.000Z');
    // Autumn: back to UTC+1 at 03:00 on 2024-10-27, so that day lasts 25 hours.
    const autumn = window(
      parseRange({ range: 'custom', start: '2024-10-27', end: '2024-10-27' }, NOW, 'Europe/Berlin'),
    );
    assert.equal(iso(autumn.start), '2024-10-26T22:00:00.000Z');
    assert.equal(iso(autumn.end), '2024-10-27T23:00:00.000Z');
  });

  it('start a day whose midnight does not exist when the clock jumps', () => {
    // Santiago skipped from 00:00 to 01:00 on 2024-09-08 (UTC−4 → UTC−3): the day began at 04:00Z.
    const w = window(
      parseRange({ range: 'custom', start: '2024-09-08', end: '2024-09-08' }, NOW, 'America/Santiago'),
    );
    assert.equal(iso(w.start), '2024-09-08T04:00:00.000Z');
    assert.equal(iso(w.end), '2024-09-09T03:00:00.000Z');
  });

  it('accept today as the end date, in the organization’s timezone', () => {
    // At 12:00Z on 2026-03-15 it is already 16 March in Auckland.
    assert.ok(
      parseRange({ range: 'custom', start: '2026-03-16', end: '2026-03-16' }, NOW, 'Pacific/Auckland').ok,
    );
    assert.ok(parseRange({ range: 'custom', start: '2026-03-15', end: '2026-03-15' }, NOW, 'UTC').ok);
  });
});

describe('400 cases of the window parameters', () => {
  const errors = (query: Parameters<typeof parseRange>[0], timezone = 'UTC') => {
    const parsed = parseRange(query, NOW, timezone);
    assert.equal(parsed.ok, false);
    return parsed.ok ? {} : parsed.errors;
  };

  it('rejects an unknown range', () => {
    assert.deepEqual(errors({ range: '13d' }), { range: ['"13d" is not a valid choice.'] });
    assert.deepEqual(errors({ range: '' }), { range: ['"" is not a valid choice.'] });
  });

  it('rejects start or end without range=custom', () => {
    assert.deepEqual(errors({ start: '2026-03-01' }), { start: ['Only allowed with range=custom.'] });
    assert.deepEqual(errors({ range: '7d', end: '2026-03-01' }), {
      end: ['Only allowed with range=custom.'],
    });
    assert.deepEqual(errors({ range: 'all', start: '2026-03-01', end: '2026-03-02' }), {
      start: ['Only allowed with range=custom.'],
      end: ['Only allowed with range=custom.'],
    });
  });

  it('requires both dates with range=custom', () => {
    assert.deepEqual(errors({ range: 'custom', start: '2026-03-01' }), {
      end: ['This field is required when range=custom.'],
    });
    assert.deepEqual(errors({ range: 'custom' }), {
      start: ['This field is required when range=custom.'],
      end: ['This field is required when range=custom.'],
    });
  });

  it('rejects malformed dates', () => {
    const format = ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'];
    assert.deepEqual(errors({ range: 'custom', start: '2026-02-30', end: '2026-03-01' }), { start: format });
    assert.deepEqual(errors({ range: 'custom', start: '2026-3-1', end: 'yesterday' }), {
      start: format,
      end: format,
    });
    assert.deepEqual(errors({ range: 'custom', start: '0999-01-01', end: '2026-03-01T00:00' }), {
      start: format,
      end: format,
    });
  });

  it('rejects a range whose comparison period would begin before year 1000, and counts old years right', () => {
    // One day, 1000-01-02: the comparison period is 1000-01-01, the earliest a date may name.
    const w = window(parseRange({ range: 'custom', start: '1000-01-02', end: '1000-01-02' }, NOW, 'UTC'));
    assert.deepEqual(
      { start: iso(w.previous?.start), end: iso(w.previous?.end) },
      { start: '1000-01-01T00:00:00.000Z', end: '1000-01-02T00:00:00.000Z' },
    );
    const tooEarly = {
      start: [
        'The comparison period (as many days before start) would begin before 1000-01-01: choose a later start or a shorter range.',
      ],
    };
    // One day, 1000-01-01: the comparison period would be 0999-12-31.
    assert.deepEqual(errors({ range: 'custom', start: '1000-01-01', end: '1000-01-01' }), tooEarly);
    // ~1,013 years: the comparison period would begin around year 0 (it was a 500), and for a start
    // in 1020 around year 13, which Date.UTC reads as 1913 (a comparison that ended before it began).
    assert.deepEqual(errors({ range: 'custom', start: '1013-01-01', end: '2026-03-01' }), tooEarly);
    assert.deepEqual(errors({ range: 'custom', start: '1020-01-01', end: '2026-03-01' }), tooEarly);
    // 1500-01-01 to 1500-12-31 is 365 days (1500 is not a leap year in the proleptic Gregorian
    // calendar: divisible by 100, not by 400), so the comparison is 1499-01-01 to 1500-01-01.
    const old = window(parseRange({ range: 'custom', start: '1500-01-01', end: '1500-12-31' }, NOW, 'UTC'));
    assert.equal(iso(old.previous?.start), '1499-01-01T00:00:00.000Z');
  });

  it('rejects an out-of-order range', () => {
    assert.deepEqual(errors({ range: 'custom', start: '2026-03-10', end: '2026-03-01' }), {
      non_field_errors: ['start must be on or before end.'],
    });
  });

  it('rejects an end in the future, judged by the organization’s calendar', () => {
    assert.deepEqual(errors({ range: 'custom', start: '2026-03-01', end: '2026-03-16' }), {
      end: ['Cannot be in the future (today is 2026-03-15 in UTC).'],
    });
    // At 05:00Z on 15 March it is still 19:00 on 14 March in Honolulu (UTC−10).
    const early = parseRange(
      { range: 'custom', start: '2026-03-01', end: '2026-03-15' },
      new Date('2026-03-15T05:00:00.000Z'),
      'Pacific/Honolulu',
    );
    assert.deepEqual(early.ok ? {} : early.errors, {
      end: ['Cannot be in the future (today is 2026-03-14 in Pacific/Honolulu).'],
    });
  });
});

describe('history windows (since, limit)', () => {
  const history = (query: Parameters<typeof parseHistory>[0], timezone = 'UTC') => {
    const parsed = parseHistory(query, NOW, timezone);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return parsed.value;
  };
  const errors = (query: Parameters<typeof parseHistory>[0]) => {
    const parsed = parseHistory(query, NOW, 'UTC');
    assert.equal(parsed.ok, false);
    return parsed.ok ? {} : parsed.errors;
  };

  it('defaults to the 30-day window and 30 points', () => {
    const h = history({});
    assert.equal(h.window.range, '30d');
    assert.equal(h.limit, 30);
  });

  it('reads since as a date at midnight in the organization’s timezone, or as an instant', () => {
    // Midnight of 1 March in New York (UTC−5) is 05:00Z.
    const date = history({ since: '2026-03-01' }, 'America/New_York');
    assert.equal(iso(date.window.start), '2026-03-01T05:00:00.000Z');
    assert.equal(date.window.spanLabel, 'since 2026-03-01');
    assert.equal(date.window.previous, null);
    assert.equal(iso(history({ since: '2026-03-01T10:30:00Z' }).window.start), '2026-03-01T10:30:00.000Z');
    assert.equal(
      iso(history({ since: '2026-03-01T10:30:00+02:00' }).window.start),
      '2026-03-01T08:30:00.000Z',
    );
    // An unencoded "+" in a query string arrives as a space.
    assert.equal(
      iso(history({ since: '2026-03-01T10:30:00 02:00' }).window.start),
      '2026-03-01T08:30:00.000Z',
    );
    // Without an offset, a date-time is read on the organization’s clock.
    assert.equal(
      iso(history({ since: '2026-03-01T10:30' }, 'Europe/Paris').window.start),
      '2026-03-01T09:30:00.000Z',
    );
  });

  it('ignores limit for the whole history and caps it at 1000 otherwise', () => {
    assert.equal(history({ since: 'all', limit: 5 }).limit, null);
    assert.equal(history({ since: 'all' }).window.spanLabel, 'all time');
    assert.equal(history({ range: 'all', limit: 5 }).limit, null);
    assert.equal(history({ limit: 5000 }).limit, 1000);
    assert.equal(history({ range: '7d', limit: 3 }).limit, 3);
  });

  it('rejects since mixed with the window parameters, a bad since and a limit below 1', () => {
    assert.deepEqual(errors({ since: '2026-03-01', range: '7d' }), {
      non_field_errors: ['since cannot be combined with range, start or end.'],
    });
    assert.deepEqual(errors({ since: 'last week' }), {
      since: ['Enter "all", a date (YYYY-MM-DD) or an ISO 8601 date-time.'],
    });
    assert.deepEqual(errors({ since: '2026-03-01T25:00' }), {
      since: ['Enter "all", a date (YYYY-MM-DD) or an ISO 8601 date-time.'],
    });
    assert.deepEqual(errors({ since: '2026-04-01' }), { since: ['Cannot be in the future.'] });
    assert.deepEqual(errors({ limit: 0 }), { limit: ['Ensure this value is greater than or equal to 1.'] });
    assert.deepEqual(errors({ range: '5d', limit: -1 }), {
      range: ['"5d" is not a valid choice.'],
      limit: ['Ensure this value is greater than or equal to 1.'],
    });
  });
});
