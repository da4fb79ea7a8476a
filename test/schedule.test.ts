import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetMonth, nextRunAt, parseWeekday, type Schedule } from '../src/domain/schedule.ts';

// The schedule's slots across daylight-saving changes, worked out by hand from the zones' rules:
// Europe/Berlin is UTC+1 (CET) until 2026-03-29 01:00 UTC, when 02:00 becomes 03:00 (CEST, UTC+2),
// and UTC+2 until 2026-10-25 01:00 UTC, when 03:00 becomes 02:00 again. America/New_York is UTC-5
// (EST) until 2026-03-08 07:00 UTC (02:00 becomes 03:00 EDT, UTC-4) and UTC-4 until 2026-11-01
// 06:00 UTC (02:00 EDT becomes 01:00 EST). 2026-03-29, 2026-10-25, 2026-03-08 and 2026-11-01 are
// Sundays (2026-03-01 is a Sunday; 2026-10-01 a Thursday).

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';

function schedule(fields: Partial<Schedule> & Pick<Schedule, 'cadence' | 'timezone'>): Schedule {
  return { time: null, weekday: null, ...fields };
}

/** The slot after `previous` (an ISO instant, or null for a new schedule) as seen at `now`. */
function next(s: Schedule, previous: string | null, now: string): string | undefined {
  return nextRunAt(s, previous === null ? null : new Date(previous), new Date(now))?.toISOString();
}

/** The slot after previous, seen a second after it: the worker that claimed it moves it on. */
const after = (s: Schedule, previous: string) =>
  next(s, previous, new Date(Date.parse(previous) + 1000).toISOString());

describe('daily at a time of day in the organization time zone', () => {
  it('keeps 06:00 in Berlin across the spring-forward night: 23 hours between two slots', () => {
    const daily = schedule({ cadence: 'daily', time: '06:00', timezone: BERLIN });
    // 2026-03-28 06:00 CET = 05:00 UTC; 2026-03-29 06:00 CEST = 04:00 UTC; 03-30 too.
    assert.equal(after(daily, '2026-03-28T05:00:00.000Z'), '2026-03-29T04:00:00.000Z');
    assert.equal(after(daily, '2026-03-29T04:00:00.000Z'), '2026-03-30T04:00:00.000Z');
  });

  it('keeps 06:00 in Berlin across the fall-back night: 25 hours between two slots', () => {
    const daily = schedule({ cadence: 'daily', time: '06:00', timezone: BERLIN });
    // 2026-10-24 06:00 CEST = 04:00 UTC; 2026-10-25 06:00 CET = 05:00 UTC.
    assert.equal(after(daily, '2026-10-24T04:00:00.000Z'), '2026-10-25T05:00:00.000Z');
    assert.equal(after(daily, '2026-10-25T05:00:00.000Z'), '2026-10-26T05:00:00.000Z');
  });

  it('runs a time the clocks skip at the offset before the jump: 02:30 is 03:30 CEST that night', () => {
    const daily = schedule({ cadence: 'daily', time: '02:30', timezone: BERLIN });
    // 2026-03-28 02:30 CET = 01:30 UTC. On 03-29, 02:30 does not exist; read at CET (UTC+1) it
    // is 01:30 UTC, which the clocks show as 03:30 CEST. On 03-30, 02:30 CEST = 00:30 UTC.
    assert.equal(after(daily, '2026-03-28T01:30:00.000Z'), '2026-03-29T01:30:00.000Z');
    assert.equal(after(daily, '2026-03-29T01:30:00.000Z'), '2026-03-30T00:30:00.000Z');
  });

  it('runs a time that happens twice once, at the first of the two', () => {
    const daily = schedule({ cadence: 'daily', time: '02:30', timezone: BERLIN });
    // 2026-10-24 02:30 CEST = 00:30 UTC. On 10-25, 02:30 happens at 00:30 UTC (CEST) and again at
    // 01:30 UTC (CET): the first. After it comes 10-26 02:30 CET = 01:30 UTC, not the second one.
    assert.equal(after(daily, '2026-10-24T00:30:00.000Z'), '2026-10-25T00:30:00.000Z');
    assert.equal(after(daily, '2026-10-25T00:30:00.000Z'), '2026-10-26T01:30:00.000Z');
  });

  it('starts a new schedule at the next slot, and not at the second 02:30 of a fall-back night', () => {
    const daily = schedule({ cadence: 'daily', time: '02:30', timezone: BERLIN });
    // Set at 2026-10-25 01:10 UTC (02:10 CET, the hour's second pass): that day's slot, the first
    // 02:30 (00:30 UTC), has passed, so the next is 10-26 02:30 CET = 01:30 UTC.
    assert.equal(next(daily, null, '2026-10-25T01:10:00.000Z'), '2026-10-26T01:30:00.000Z');
    // Set at 2026-10-25 00:10 UTC (02:10 CEST): the first 02:30 is still ahead, 00:30 UTC.
    assert.equal(next(daily, null, '2026-10-25T00:10:00.000Z'), '2026-10-25T00:30:00.000Z');
    // Set at 06:00 UTC on the spring-forward day (08:00 CEST): today's 02:30 has gone; 03-30
    // 02:30 CEST = 00:30 UTC.
    assert.equal(next(daily, null, '2026-03-29T06:00:00.000Z'), '2026-03-30T00:30:00.000Z');
  });

  it('in New York: 01:30 on the fall-back night is the EDT one, 02:30 on spring-forward is 03:30 EDT', () => {
    const late = schedule({ cadence: 'daily', time: '01:30', timezone: NEW_YORK });
    // 10-31 01:30 EDT = 05:30 UTC; 11-01 01:30 happens at 05:30 UTC (EDT) and 06:30 UTC (EST):
    // the first; 11-02 01:30 EST = 06:30 UTC.
    assert.equal(after(late, '2026-10-31T05:30:00.000Z'), '2026-11-01T05:30:00.000Z');
    assert.equal(after(late, '2026-11-01T05:30:00.000Z'), '2026-11-02T06:30:00.000Z');
    const gap = schedule({ cadence: 'daily', time: '02:30', timezone: NEW_YORK });
    // 03-07 02:30 EST = 07:30 UTC; on 03-08 02:30 read at EST is 07:30 UTC (03:30 EDT); 03-09
    // 02:30 EDT = 06:30 UTC.
    assert.equal(after(gap, '2026-03-07T07:30:00.000Z'), '2026-03-08T07:30:00.000Z');
    assert.equal(after(gap, '2026-03-08T07:30:00.000Z'), '2026-03-09T06:30:00.000Z');
  });
});

describe('weekly', () => {
  it('keeps Sunday 02:30 in New York across both changes', () => {
    const weekly = schedule({ cadence: 'weekly', time: '02:30', timezone: NEW_YORK });
    // 03-01 02:30 EST = 07:30 UTC; 03-08 02:30 is skipped, read at EST: 07:30 UTC (03:30 EDT);
    // 03-15 02:30 EDT = 06:30 UTC.
    assert.equal(after(weekly, '2026-03-01T07:30:00.000Z'), '2026-03-08T07:30:00.000Z');
    assert.equal(after(weekly, '2026-03-08T07:30:00.000Z'), '2026-03-15T06:30:00.000Z');
    // 10-25 02:30 EDT = 06:30 UTC; 11-01 02:30 EST = 07:30 UTC (02:30 happens once: the clocks
    // go from 01:59 EDT back to 01:00).
    assert.equal(after(weekly, '2026-10-25T06:30:00.000Z'), '2026-11-01T07:30:00.000Z');
  });

  it('keeps Sunday 06:00 in Berlin across the fall-back week: 169 hours', () => {
    const weekly = schedule({ cadence: 'weekly', time: '06:00', timezone: BERLIN });
    // 10-18 06:00 CEST = 04:00 UTC; 10-25 06:00 CET = 05:00 UTC.
    assert.equal(after(weekly, '2026-10-18T04:00:00.000Z'), '2026-10-25T05:00:00.000Z');
  });

  it('runs on the chosen weekday, first on the next one', () => {
    const monday = schedule({ cadence: 'weekly', time: '09:00', weekday: 'mon', timezone: NEW_YORK });
    // Set on Wednesday 2026-03-04 10:00 EST (15:00 UTC): the next Monday is 03-09, after the
    // change, so 09:00 EDT = 13:00 UTC; a week on, 03-16 13:00 UTC.
    assert.equal(next(monday, null, '2026-03-04T15:00:00.000Z'), '2026-03-09T13:00:00.000Z');
    assert.equal(after(monday, '2026-03-09T13:00:00.000Z'), '2026-03-16T13:00:00.000Z');
    // Set on Monday 03-09 before 09:00 (08:00 EDT = 12:00 UTC): that same day.
    assert.equal(next(monday, null, '2026-03-09T12:00:00.000Z'), '2026-03-09T13:00:00.000Z');
    // Set on Monday 03-09 after 09:00 (14:00 UTC): the Monday after.
    assert.equal(next(monday, null, '2026-03-09T14:00:00.000Z'), '2026-03-16T13:00:00.000Z');
  });

  it('takes the weekday in the organization time zone, not in UTC', () => {
    const friday = schedule({ cadence: 'weekly', time: '00:30', weekday: 'fri', timezone: BERLIN });
    // Friday 2026-03-27 00:30 CET is Thursday 23:30 UTC.
    assert.equal(next(friday, null, '2026-03-25T10:00:00.000Z'), '2026-03-26T23:30:00.000Z');
    // A week on is Friday 04-03 00:30 CEST = Thursday 04-02 22:30 UTC.
    assert.equal(after(friday, '2026-03-26T23:30:00.000Z'), '2026-04-02T22:30:00.000Z');
  });

  it('without a time of day: at once on the weekday, else when the weekday begins', () => {
    const friday = schedule({ cadence: 'weekly', weekday: 'fri', timezone: BERLIN });
    // Wednesday 2026-03-25: Friday 03-27 00:00 CET = 03-26 23:00 UTC.
    assert.equal(next(friday, null, '2026-03-25T10:00:00.000Z'), '2026-03-26T23:00:00.000Z');
    // On Friday 03-27 (10:00 UTC is 11:00 CET): now.
    assert.equal(next(friday, null, '2026-03-27T10:00:00.000Z'), '2026-03-27T10:00:00.000Z');
    // Then Friday 04-03 at the same wall-clock 11:00, now CEST: 09:00 UTC.
    assert.equal(after(friday, '2026-03-27T10:00:00.000Z'), '2026-04-03T09:00:00.000Z');
  });

  it('ignores a weekday on a daily schedule', () => {
    const daily = schedule({ cadence: 'daily', time: '06:00', weekday: 'mon', timezone: 'UTC' });
    // Wednesday 2026-03-04 07:00 UTC: Thursday 06:00, not Monday.
    assert.equal(next(daily, null, '2026-03-04T07:00:00.000Z'), '2026-03-05T06:00:00.000Z');
  });
});

describe('without a time of day', () => {
  it('is due at once, then a day on at the same wall-clock time across a change', () => {
    const daily = schedule({ cadence: 'daily', timezone: BERLIN });
    assert.equal(next(daily, null, '2026-03-28T08:15:00.000Z'), '2026-03-28T08:15:00.000Z');
    // 03-28 08:15 UTC is 09:15 CET; 03-29 09:15 CEST = 07:15 UTC (23 hours later).
    assert.equal(after(daily, '2026-03-28T08:15:00.000Z'), '2026-03-29T07:15:00.000Z');
  });

  it('weekly: a week on', () => {
    const weekly = schedule({ cadence: 'weekly', timezone: 'UTC' });
    assert.equal(after(weekly, '2026-03-02T10:00:00.000Z'), '2026-03-09T10:00:00.000Z');
  });
});

describe('a slot missed while no worker ran', () => {
  it('is run once: the next slot is the first still ahead, at the time of day', () => {
    const daily = schedule({ cadence: 'daily', time: '06:00', timezone: BERLIN });
    // Due 03-20 06:00 CET (05:00 UTC), claimed 03-25 10:00 UTC: next is 03-26 06:00 CET = 05:00 UTC.
    assert.equal(
      next(daily, '2026-03-20T05:00:00.000Z', '2026-03-25T10:00:00.000Z'),
      '2026-03-26T05:00:00.000Z',
    );
  });

  it('is run once without a time of day too: never a second run at the next poll', () => {
    const daily = schedule({ cadence: 'daily', timezone: BERLIN });
    // Due 03-20 09:15 CET (08:15 UTC), claimed 03-25 10:00 UTC (11:00 CET): the 09:15 series'
    // next slot is 03-26 09:15 CET = 08:15 UTC.
    assert.equal(
      next(daily, '2026-03-20T08:15:00.000Z', '2026-03-25T10:00:00.000Z'),
      '2026-03-26T08:15:00.000Z',
    );
    const weekly = schedule({ cadence: 'weekly', timezone: 'UTC' });
    // Due Monday 03-02 10:00, claimed Thursday 03-19: the Mondays go on, 03-23 10:00.
    assert.equal(
      next(weekly, '2026-03-02T10:00:00.000Z', '2026-03-19T00:00:00.000Z'),
      '2026-03-23T10:00:00.000Z',
    );
  });

  it('keeps a weekly series on its weekday', () => {
    const monday = schedule({ cadence: 'weekly', time: '09:00', weekday: 'mon', timezone: NEW_YORK });
    // Due 03-09 09:00 EDT (13:00 UTC), claimed Thursday 03-19: Monday 03-23 09:00 EDT = 13:00 UTC.
    assert.equal(
      next(monday, '2026-03-09T13:00:00.000Z', '2026-03-19T12:00:00.000Z'),
      '2026-03-23T13:00:00.000Z',
    );
  });
});

describe('off, weekday names and budget months', () => {
  it('has no next run when off', () => {
    assert.equal(
      next(schedule({ cadence: 'off', timezone: BERLIN }), null, '2026-03-01T00:00:00.000Z'),
      undefined,
    );
  });

  it('reads weekday names in any case, short or long', () => {
    assert.deepEqual(['mon', 'Monday', 'SUN', 'saturday', 'mo', 'funday', ''].map(parseWeekday), [
      'mon',
      'mon',
      'sun',
      'sat',
      null,
      null,
      null,
    ]);
  });

  it('counts an ask in the calendar month of the organization time zone', () => {
    // 2026-03-31 23:30 UTC is 04-01 01:30 CEST in Berlin and 03-31 19:30 EDT in New York.
    assert.equal(budgetMonth(new Date('2026-03-31T23:30:00Z'), BERLIN), '2026-04');
    assert.equal(budgetMonth(new Date('2026-03-31T23:30:00Z'), NEW_YORK), '2026-03');
  });
});
