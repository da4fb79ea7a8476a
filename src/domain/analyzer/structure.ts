// The answer's ranked structure: list items, table rows, headings and bold-led paragraphs, each with
// its "lead" (the part that names what the entry is about: the bold text, the text before a dash or
// colon, a table row's first cell). Purely syntactic; which leads name brands is decided later.

export interface Span {
  start: number;
  end: number;
}

export type EntryKind = 'list' | 'table' | 'heading' | 'bold';

export interface Entry {
  kind: EntryKind;
  start: number;
  /** Where the entry may name its subject, most likely first (bold text, then what follows it). */
  leads: Span[];
  /** The entry's own text plus everything nested under it. */
  body: Span;
  group: Group;
  parent: Entry | null;
  /** Heading level (1–6); list nesting depth; 0 otherwise. */
  level: number;
}

/** Entries that rank together: one list level under one parent, one table, one heading level. */
export interface Group {
  entries: Entry[];
  /** For a nested list: the item it is nested under. */
  parent: Entry | null;
}

export interface Line extends Span {
  text: string;
}

export interface Structure {
  lines: Line[];
  groups: Group[];
  /** Offsets of lines that are table rows (their cells are separate sentences). */
  tableRows: Set<number>;
}

const LIST_ITEM = /^([ \t]*)(?:(\d{1,3})[.)]|[-*+•·▪◦–])[ \t]+(?=\S)/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(?=\S)/;
const TABLE_ROW = /^[ \t]*\|.*\|[ \t]*$/;
const TABLE_SEPARATOR = /^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$/;
const BOLD_START = /^[ \t]{0,3}(\*\*|__)(?=\S)/;
const PREFIX = /^(?:\s|\p{Extended_Pictographic}|\u200d|\ufe0f|>)*(?:#?\d{1,3}[.):]?(?=\s)\s*)?/u;
const SEPARATOR = /\s[-–—]\s|[–—]|:\s|:$|\s\(|,\s|\s\|/;
const MAX_LEAD_WORDS = 6;

export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    lines.push({ start, end: stop, text: text.slice(start, stop) });
    if (end === -1) return lines;
    start = end + 1;
  }
}

function indentOf(prefix: string): number {
  let n = 0;
  for (const c of prefix) n += c === '\t' ? 4 : 1;
  return n;
}

function wordCount(text: string): number {
  const trimmed = text.trim();
  return trimmed ? trimmed.split(/\s+/).length : 0;
}

/** The text before the first separator, when it is short enough to be a name. */
function leadUpToSeparator(text: string, from: number, to: number, maxWords: number): Span | null {
  const slice = text.slice(from, to);
  const cut = SEPARATOR.exec(slice);
  const end = from + (cut ? cut.index : slice.length);
  const lead = text.slice(from, end);
  if (!lead.trim() || wordCount(lead) > maxWords) return null;
  return { start: from, end };
}

/**
 * Lead spans of an entry whose content runs from `from` to `to`, of at most `maxWords` words (two
 * more in bold).
 */
export function leadsOf(text: string, from: number, to: number, maxWords: number): Span[] {
  const start = from + (PREFIX.exec(text.slice(from, to))?.[0].length ?? 0);
  const marker = text.slice(start, start + 2);
  if (marker === '**' || marker === '__') {
    const close = text.indexOf(marker, start + 2);
    if (close !== -1 && close < to) {
      const leads: Span[] = [];
      if (wordCount(text.slice(start + 2, close)) <= maxWords + 2)
        leads.push({ start: start + 2, end: close });
      // "**Best overall:** Asana — …": the bold is a label and the name follows it.
      const after = close + 2 + (/^[\s:–—-]*/.exec(text.slice(close + 2, to))?.[0].length ?? 0);
      const rest = leadUpToSeparator(text, after, to, maxWords);
      if (rest) leads.push(rest);
      return leads;
    }
  }
  const lead = leadUpToSeparator(text, start, to, maxWords);
  return lead ? [lead] : [];
}

function cellsOf(line: Line): Span[] {
  const cells: Span[] = [];
  const first = line.text.indexOf('|');
  let cellStart = first + 1;
  for (let i = cellStart; i < line.text.length; i++) {
    if (line.text[i] === '|' && line.text[i - 1] !== '\\') {
      cells.push({ start: line.start + cellStart, end: line.start + i });
      cellStart = i + 1;
    }
  }
  return cells;
}

interface OpenItem {
  indent: number;
  entry: Entry;
}

/**
 * `longestName`: words in the longest name the answer is searched for. A lead is a name's length
 * (six words, eight in bold) or that name's, whichever is longer: a brand named in nine words
 * never led its list item, so the item ranked the competitor after it first.
 */
export function parseStructure(text: string, longestName = 0): Structure {
  const leadWords = Math.max(MAX_LEAD_WORDS, longestName);
  const lines = splitLines(text);
  const groups: Group[] = [];
  const tableRows = new Set<number>();
  const newGroup = (parent: Entry | null): Group => {
    const group: Group = { entries: [], parent };
    groups.push(group);
    return group;
  };
  const headingGroups = new Map<number, Group>();
  const headings: Entry[] = [];
  const numbers = new Map<Entry, number | null>();
  let boldGroup: Group | null = null;
  let boldEntry: Entry | null = null;

  // The list being read: its open items by indentation, and the group of each (parent, level).
  let stack: OpenItem[] | null = null;
  let listGroups = new Map<Entry | null, Group>();
  let blankInList = false;
  let inParagraph = false;
  // The last numbered top-level item of a list that prose interrupted: "2." after the prose
  // continues that list, and the prose in between belongs to item 1.
  let interrupted: { entry: Entry; number: number; groups: Map<Entry | null, Group> } | null = null;

  const extend = (entry: Entry, end: number) => {
    for (let e: Entry | null = entry; e; e = e.parent) e.body.end = Math.max(e.body.end, end);
  };
  const add = (group: Group, entry: Omit<Entry, 'group'>): Entry => {
    const full: Entry = { ...entry, group };
    group.entries.push(full);
    return full;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as Line;
    if (!line.text.trim()) {
      blankInList = stack !== null;
      inParagraph = false;
      boldEntry = null;
      continue;
    }
    const heading = HEADING.exec(line.text);
    if (heading) {
      stack = null;
      interrupted = null;
      inParagraph = false;
      boldEntry = null;
      const level = (heading[1] as string).length;
      let group = headingGroups.get(level);
      if (!group) {
        group = newGroup(null);
        headingGroups.set(level, group);
      }
      const entry = add(group, {
        kind: 'heading',
        start: line.start,
        leads: leadsOf(text, line.start + heading[0].length, line.end, leadWords),
        body: { start: line.start, end: line.end },
        parent: null,
        level,
      });
      headings.push(entry);
      continue;
    }
    if (TABLE_ROW.test(line.text)) {
      stack = null;
      interrupted = null;
      inParagraph = false;
      boldEntry = null;
      const group = newGroup(null);
      const hasHeader = TABLE_SEPARATOR.test(lines[i + 1]?.text ?? '');
      let j = i;
      for (; j < lines.length; j++) {
        const row = lines[j] as Line;
        if (TABLE_SEPARATOR.test(row.text)) continue;
        if (!TABLE_ROW.test(row.text)) break;
        tableRows.add(row.start);
        if (j === i && hasHeader) continue;
        // The name is usually in the first cell; "| Best overall | Brooks Ghost 16 |" puts it second.
        const cells = cellsOf(row)
          .filter((c) => !/^[\s#*_]*\d*[.)]?[\s*_]*$/.test(text.slice(c.start, c.end)))
          .slice(0, 2);
        add(group, {
          kind: 'table',
          start: row.start,
          leads: cells.flatMap((c) => leadsOf(text, c.start, c.end, leadWords)),
          body: { start: row.start, end: row.end },
          parent: null,
          level: 0,
        });
      }
      i = j - 1;
      continue;
    }
    const item = LIST_ITEM.exec(line.text);
    if (item) {
      inParagraph = false;
      boldEntry = null;
      if (stack === null) {
        stack = [];
        listGroups = new Map();
        const number = item[2] === undefined ? null : Number(item[2]);
        if (interrupted && number === interrupted.number + 1) {
          extend(interrupted.entry, line.start - 1);
          listGroups = interrupted.groups;
        }
        interrupted = null;
      }
      blankInList = false;
      const indent = indentOf(item[1] as string);
      while (stack.length > 0 && indent < (stack[stack.length - 1] as OpenItem).indent + 2) stack.pop();
      const parent = stack[stack.length - 1]?.entry ?? null;
      let group = listGroups.get(parent);
      if (!group) {
        group = newGroup(parent);
        listGroups.set(parent, group);
      }
      const entry = add(group, {
        kind: 'list',
        start: line.start,
        leads: leadsOf(text, line.start + item[0].length, line.end, leadWords),
        body: { start: line.start, end: line.end },
        parent,
        level: stack.length,
      });
      if (parent) extend(parent, line.end);
      stack.push({ indent, entry });
      if (stack.length === 1) numbers.set(entry, item[2] === undefined ? null : Number(item[2]));
      continue;
    }
    if (stack !== null) {
      const indented = /^[ \t]/.test(line.text);
      const top = stack[stack.length - 1];
      if (top && (indented || !blankInList)) {
        extend(top.entry, line.end);
        continue;
      }
      const last = stack[0]?.entry;
      const number = last ? numbers.get(last) : undefined;
      interrupted = last && typeof number === 'number' ? { entry: last, number, groups: listGroups } : null;
      stack = null;
    }
    if (!inParagraph && BOLD_START.test(line.text)) {
      const leads = leadsOf(text, line.start, line.end, leadWords);
      if (leads.length > 0) {
        boldGroup ??= newGroup(null);
        boldEntry = add(boldGroup, {
          kind: 'bold',
          start: line.start,
          leads,
          body: { start: line.start, end: line.end },
          parent: null,
          level: 0,
        });
      }
    } else if (boldEntry) extend(boldEntry, line.end);
    inParagraph = true;
  }

  // A heading's section runs to the next heading of the same or a higher level. Walked from the
  // last heading back, those that can still end a section are a stack (a deeper one can end none
  // before a heading above it), so that each heading is looked at once, not once per heading before it.
  const later: Entry[] = [];
  for (let h = headings.length - 1; h >= 0; h--) {
    const entry = headings[h] as Entry;
    while (later.length > 0 && (later[later.length - 1] as Entry).level > entry.level) later.pop();
    const next = later[later.length - 1];
    entry.body.end = next ? next.start - 1 : text.length;
    later.push(entry);
  }
  return { lines, groups: groups.filter((g) => g.entries.length > 0), tableRows };
}
