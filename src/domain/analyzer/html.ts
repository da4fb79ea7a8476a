// Answer HTML → the markdown dialect the rest of the analyzer reads. Engines' HTML keeps structure
// (ordered lists, tables, bold leads, links) that their plain-text export often flattens, so when
// an answer comes with HTML its structure is read from here. Tolerant of broken markup: unknown
// tags are dropped, unclosed ones simply end with the document.

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  middot: '·',
  bull: '•',
  copy: '©',
  reg: '®',
  trade: '™',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const BLOCK = new Set(['p', 'div', 'section', 'article', 'blockquote', 'header', 'footer', 'main', 'aside']);
const SKIPPED = new Set(['script', 'style', 'head', 'template', 'svg', 'noscript']);

interface ListState {
  ordered: boolean;
  count: number;
}

interface TableState {
  row: number;
  headerRow: boolean;
}

function attribute(attributes: string, name: string): string | null {
  const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attributes);
  return match ? decodeEntities(match[1] ?? match[2] ?? match[3] ?? '') : null;
}

/** How many levels of nested lists keep their own indent; no answer worth reading nests more. */
const MAX_LIST_DEPTH = 8;

export function htmlToMarkdown(html: string): string {
  const out: string[] = [];
  const lists: ListState[] = [];
  const tables: TableState[] = [];
  const links: Array<string | null> = [];
  let skipping: string | null = null;
  let pre = 0;
  // Paragraphs and line breaks inside a list item or a table cell must not break the item or row.
  let openItems = 0;
  let openCells = 0;
  // A comment or a tag never closed runs to the end and is dropped, as in a browser. Read as text
  // instead, each "<!--" or "<b" of a long answer searched the rest of it for its end, again and
  // again (a million characters of "<!--": 76 s; of "<b ": 7 minutes).
  const tag =
    /<!--(?:[\s\S]*?-->|[\s\S]*$)|<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|<\/?[a-zA-Z][^>]*$|([^<]+|<)/g;
  for (let m = tag.exec(html); m !== null; m = tag.exec(html)) {
    const [, closing, rawName, attributes = '', text] = m;
    if (text !== undefined) {
      // Text between a table's cells is markup whitespace; a newline there would split the table.
      if (skipping || (tables.length > 0 && openCells === 0)) continue;
      const decoded = decodeEntities(text);
      out.push(pre > 0 ? decoded : decoded.replace(/\s+/g, ' '));
      continue;
    }
    if (!rawName) continue;
    const name = rawName.toLowerCase();
    if (skipping) {
      if (closing && name === skipping) skipping = null;
      continue;
    }
    if (SKIPPED.has(name)) {
      if (!closing && !attributes.trim().endsWith('/')) skipping = name;
      continue;
    }
    const inline = openItems > 0 || openCells > 0;
    if (name === 'br') out.push(inline ? ' ' : '\n');
    else if (BLOCK.has(name)) out.push(inline ? ' ' : '\n\n');
    else if (/^h[1-6]$/.test(name)) out.push(closing ? '\n\n' : `\n\n${'#'.repeat(Number(name[1]))} `);
    else if (name === 'ul' || name === 'ol') {
      if (closing) {
        lists.pop();
        openItems = Math.min(openItems, lists.length);
      } else lists.push({ ordered: name === 'ol', count: 0 });
      out.push('\n');
    } else if (name === 'li' && closing) openItems = Math.max(0, openItems - 1);
    else if (name === 'li') {
      openItems = lists.length > 0 ? lists.length : 1;
      const list = lists[lists.length - 1];
      // Deeper lists are indented as the deepest kept: each level's indent repeated on every line
      // grew the text with the square of the depth (50,000 nested lists: billions of spaces).
      const indent = '   '.repeat(Math.min(Math.max(0, lists.length - 1), MAX_LIST_DEPTH - 1));
      const marker = list?.ordered ? `${++list.count}.` : '-';
      out.push(`\n${indent}${marker} `);
    } else if (name === 'strong' || name === 'b') out.push('**');
    else if (name === 'code' && pre === 0) out.push('`');
    else if (name === 'pre') {
      pre += closing ? -1 : 1;
      out.push('\n```\n');
    } else if (name === 'a') {
      if (closing) {
        const href = links.pop();
        if (href) out.push(`](${href})`);
      } else {
        const href = attribute(attributes, 'href');
        const usable = href && /^https?:\/\//i.test(href) ? href : null;
        links.push(usable);
        if (usable) out.push('[');
      }
    } else if (name === 'table') {
      if (closing) tables.pop();
      else tables.push({ row: 0, headerRow: false });
      out.push('\n\n');
    } else if (name === 'tr') {
      const table = tables[tables.length - 1];
      if (closing) {
        // Markdown knows a header row only by the separator line under it.
        if (table && table.row === 1 && table.headerRow) out.push('\n| --- |');
      } else {
        if (table) table.row++;
        out.push('\n|');
      }
    } else if (name === 'td' || name === 'th') {
      const table = tables[tables.length - 1];
      openCells = closing ? 0 : 1;
      if (closing) out.push(' |');
      else {
        if (name === 'th' && table?.row === 1) table.headerRow = true;
        out.push(' ');
      }
    }
  }
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
