/**
 * `text` in double quotes, cut to `max` characters (code points, never half a surrogate pair) with
 * `ellipsis` at the end when longer: a prompt runs to 2,000 characters, and a sentence quoting one
 * must still end with what it says about it.
 */
export function quote(text: string, max: number, ellipsis: string): string {
  const chars = Array.from(text);
  if (chars.length <= max) return `"${text}"`;
  return `"${chars.slice(0, max - ellipsis.length).join('')}${ellipsis}"`;
}
