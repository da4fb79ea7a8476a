import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freshReads } from '../src/db/fresh-reads.ts';

// The sharing of PostgreSQL's snapshot read among requests arriving together (src/db/fresh-reads.ts),
// with reads this test settles by hand.

function controlledReads() {
  const started: Array<PromiseWithResolvers<string>> = [];
  const read = () => {
    const reading = Promise.withResolvers<string>();
    started.push(reading);
    return reading.promise;
  };
  return { started, read };
}

/** Lets every promise continuation queued so far run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('reads shared by callers arriving together', () => {
  it('gives each caller a read started after it asked: the one under way to its starter, the next to everyone who came meanwhile', async () => {
    const { started, read } = controlledReads();
    const version = freshReads(read);
    const first = version();
    const second = version();
    const third = version();
    assert.equal(started.length, 1);
    started[0]?.resolve('v1');
    assert.equal(await first, 'v1');
    await settle();
    // The second read starts once the first is done, for both callers that came during it.
    assert.equal(started.length, 2);
    started[1]?.resolve('v2');
    assert.deepEqual(await Promise.all([second, third]), ['v2', 'v2']);
    // Nothing under way: the next caller starts a read of its own at once.
    const fourth = version();
    assert.equal(started.length, 3);
    started[2]?.resolve('v3');
    assert.equal(await fourth, 'v3');
  });

  it('fails only the callers of a failed read; those waiting get the next one', async () => {
    const { started, read } = controlledReads();
    const version = freshReads(read);
    const first = version();
    const second = version();
    started[0]?.reject(new Error('connection lost'));
    await assert.rejects(first, /connection lost/);
    await settle();
    assert.equal(started.length, 2);
    started[1]?.resolve('v2');
    assert.equal(await second, 'v2');
  });
});
