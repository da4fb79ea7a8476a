// Renders the markdown subset the synthetic answers use (headings, ordered and bulleted lists,
// pipe tables, bold, links, bare URLs) to HTML, as an engine's web UI would have shown it.

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>')
    .replace(/(^|[\s(])(https?:\/\/[^\s<)]+)/g, '$1<a href="$2">$2</a>');
}

function table(lines: readonly string[]): string {
  const cells = (line: string) =>
    line
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
  const [head = '', , ...body] = lines;
  const th = cells(head)
    .map((cell) => `<th>${inline(cell)}</th>`)
    .join('');
  const rows = body.map(
    (line) =>
      `<tr>${cells(line)
        .map((cell) => `<td>${inline(cell)}</td>`)
        .join('')}</tr>`,
  );
  return `<table><thead><tr>${th}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function block(text: string): string {
  const lines = text.split('\n');
  const first = lines[0] ?? '';
  const heading = /^(#{1,6}) (.*)$/.exec(first);
  if (heading && lines.length === 1) {
    const level = heading[1]?.length ?? 3;
    return `<h${level}>${inline(heading[2] ?? '')}</h${level}>`;
  }
  if (lines.every((line) => /^\d+\. /.test(line))) {
    return `<ol>${lines.map((line) => `<li>${inline(line.replace(/^\d+\. /, ''))}</li>`).join('')}</ol>`;
  }
  if (lines.every((line) => line.startsWith('- '))) {
    return `<ul>${lines.map((line) => `<li>${inline(line.slice(2))}</li>`).join('')}</ul>`;
  }
  if (lines.every((line) => line.startsWith('|'))) return table(lines);
  if (lines.length > 1 && first.endsWith(':') && lines.slice(1).every((line) => line.startsWith('- '))) {
    return `<p>${inline(first)}</p><ul>${lines
      .slice(1)
      .map((line) => `<li>${inline(line.slice(2))}</li>`)
      .join('')}</ul>`;
  }
  return `<p>${lines.map(inline).join('<br>')}</p>`;
}

export function markdownToHtml(markdown: string): string {
  return markdown
    .split(/\n{2,}/)
    .filter((b) => b.trim() !== '')
    .map(block)
    .join('\n');
}
