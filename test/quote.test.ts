import assert from 'node:assert/strict';
import { it } from 'node:test';
import { quote } from '../src/domain/quote.ts';

// A prompt quoted in a sentence (a recommendation's title, a report's "what changed"), cut short.

it('quotes a short text whole and cuts a long one to its length with the ellipsis, by code point', () => {
  assert.equal(quote('Best CRM?', 80, '...'), '"Best CRM?"');
  assert.equal(quote('a'.repeat(80), 80, '...'), `"${'a'.repeat(80)}"`);
  // 81 characters: 77 kept and the three dots make 80.
  assert.equal(quote('a'.repeat(81), 80, '...'), `"${'a'.repeat(77)}..."`);
  assert.equal(quote('b'.repeat(2000), 100, '…'), `"${'b'.repeat(99)}…"`);
  // 150 emoji (two UTF-16 units each): 99 of them whole, never half of one.
  const emoji = quote('😀'.repeat(150), 100, '…');
  assert.equal(emoji, `"${'😀'.repeat(99)}…"`);
  assert.ok(emoji.isWellFormed());
});
