import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { htmlToMarkdown } from '../src/domain/analyzer/html.ts';
import { analyzeAnswer, canonicalKey, createAnalyzer } from '../src/domain/analyzer/index.ts';
import { parseStructure } from '../src/domain/analyzer/structure.ts';
import { FIELDS, fieldMatches, loadCorpus, observed } from './fixtures/analyzer/corpus.ts';

// The labelled corpus (test/fixtures/analyzer/*.json) is the analyzer's specification: every case
// must come out exactly as labelled, except fields a case lists under knownMisses — and those must
// still be wrong, so that fixing one forces its label to be promoted to an expectation.

const corpus = loadCorpus();

describe('analyzer corpus', () => {
  it('has at least 60 labelled answers', () => {
    assert.ok(corpus.length >= 60, `only ${corpus.length} cases`);
  });

  for (const c of corpus) {
    it(`${c.file} ${c.id}`, () => {
      const actual = observed(analyzeAnswer(c.subject, c.answer));
      for (const field of FIELDS) {
        const reason = c.knownMisses[field];
        if (reason === undefined) {
          assert.deepEqual(actual[field], c.expected[field], `${c.id}: ${field}`);
        } else {
          assert.ok(
            !fieldMatches(field, c.expected, actual),
            `${c.id}: ${field} now passes; remove it from knownMisses`,
          );
        }
      }
    });
  }

  it('keeps known misses rare', () => {
    const misses = corpus.filter((c) => Object.keys(c.knownMisses).length > 0).length;
    // At most one case in twelve may carry a known miss.
    assert.ok(misses * 12 <= corpus.length, `${misses} of ${corpus.length} cases have known misses`);
  });
});

describe('analyzer pieces', () => {
  it('derives canonical keys', () => {
    assert.equal(canonicalKey('Monday.com Inc.'), 'monday-com');
    assert.equal(canonicalKey('  Crédit   Agricole '), 'credit-agricole');
    assert.equal(canonicalKey('De’Longhi'), 'de-longhi');
    assert.equal(canonicalKey('小红书'), '小红书');
  });

  it('converts HTML lists, tables, links and entities to markdown', () => {
    const markdown = htmlToMarkdown(
      '<h2>Top</h2><ol><li><b>A</b> &amp; co</li><li>B<ul><li>detail</li></ul></li></ol>' +
        '<table><tr><th>Tool</th></tr><tr><td>C</td></tr></table><p><a href="https://x.io/a">x</a><script>y()</script></p>',
    );
    assert.equal(
      markdown,
      [
        '## Top',
        '',
        '1. **A** & co',
        '2. B',
        '',
        '   - detail',
        '',
        '| Tool |',
        '| --- |',
        '| C |',
        '',
        '[x](https://x.io/a)',
      ].join('\n'),
    );
  });

  it('drops a comment or a tag left open at the end of the HTML, as a browser does', () => {
    assert.equal(htmlToMarkdown('<p>Globex leads.</p><!-- Monday <p>draft</p>'), 'Globex leads.');
    assert.equal(htmlToMarkdown('<p>Globex leads.</p><!-- old --><p>Acme</p>'), 'Globex leads.\n\nAcme');
    assert.equal(htmlToMarkdown('<p>Globex leads.</p><a href="https://monday.com Monday'), 'Globex leads.');
    // A "<" that opens no tag is text.
    assert.equal(htmlToMarkdown('<p>2 < 3 and Globex</p>'), '2 < 3 and Globex');
  });

  it('indents nested HTML lists to the eighth level, and deeper ones as the eighth', () => {
    const depth = 10;
    const html = `${Array.from({ length: depth }, (_, d) => `<ul><li>x${d + 1}`).join('')}${'</li></ul>'.repeat(depth)}`;
    const items = htmlToMarkdown(html)
      .split('\n')
      .filter((line) => line.trim() !== '');
    // Level d is indented 3 × (d − 1) spaces up to level 8 (21 spaces); levels 9 and 10 as level 8.
    assert.deepEqual(
      items,
      [0, 3, 6, 9, 12, 15, 18, 21, 21, 21].map((spaces, d) => `${' '.repeat(spaces)}- x${d + 1}`),
    );
  });

  it("runs a heading's section to the next heading of its level or above", () => {
    const text = '# A\n## B\n### C\n## D\n# E\nend';
    // Offsets: "# A" 0, "## B" 4, "### C" 9, "## D" 15, "# E" 20; the text is 27 long.
    const bodies = parseStructure(text)
      .groups.flatMap((group) => group.entries)
      .sort((a, b) => a.start - b.start)
      .map((entry) => [text.slice(entry.start, entry.start + 5).split('\n')[0], entry.body.end]);
    assert.deepEqual(bodies, [
      ['# A', 19],
      ['## B', 14],
      ['### C', 14],
      ['## D', 19],
      ['# E', 27],
    ]);
  });

  it('reuses one compiled analyzer across answers', () => {
    const analyzer = createAnalyzer({ brand: { name: 'Acme' }, competitors: [{ name: 'Globex' }] });
    assert.equal(analyzer.analyze({ text: 'Globex beats Acme.' }).rank, 2);
    assert.equal(analyzer.analyze({ text: 'Acme alone.' }).rank, 1);
    assert.equal(analyzer.analyze({ text: 'Nobody here.' }).mentioned, false);
  });

  it('ranks by a list item led by a name longer than six words (eight in bold)', () => {
    const brand = 'Acme Widgets Incorporated International Holdings Group of Companies Limited Worldwide';
    const analyzer = createAnalyzer({ brand: { name: brand }, competitors: [{ name: 'Evil Corp' }] });
    for (const text of [
      `1. **${brand}** – great.\n2. **Evil Corp** – ok.\n`,
      `1. ${brand} – great.\n2. Evil Corp – ok.\n`,
    ]) {
      const result = analyzer.analyze({ text });
      assert.deepEqual(
        [result.rank, result.competitors.map((c) => [c.name, c.rank])],
        [1, [['Evil Corp', 2]]],
        text,
      );
    }
  });

  it('ranks a list of 200,000 items without running out of stack', () => {
    const items = Array.from({ length: 200_000 }, (_, i) => `- Acme item ${i}`);
    const result = analyzeAnswer(
      { brand: { name: 'Acme' }, competitors: [{ name: 'Globex' }] },
      { text: ['- Globex first', ...items].join('\n') },
    );
    assert.deepEqual([result.mentioned, result.rank], [true, 2]);
  });

  it('reports sentiment and rank as null when the brand is absent', () => {
    const result = analyzeAnswer({ brand: { name: 'Acme' }, competitors: [] }, { text: 'Globex is great.' });
    assert.deepEqual([result.mentioned, result.rank, result.sentiment], [false, null, null]);
  });
});
