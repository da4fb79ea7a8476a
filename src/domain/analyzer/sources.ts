import { getDomain, getHostname } from 'tldts';
import type { Source } from './types.ts';

// The answer's sources: the captured citation URLs first, then every URL in the answer (markdown
// links, footnote definitions, bare URLs), each once. The domain is the registrable domain under the
// public suffix list (blog.example.co.uk → example.co.uk), which also drops "www.".

/** The source a URL stands for, or null when it is not an http(s) URL with a host. */
export function sourceOf(raw: string): Source | null {
  const trimmed = raw.trim();
  const url = /^www\./i.test(trimmed) ? `https://${trimmed}` : trimmed;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) return null;
  const host = getHostname(url) ?? parsed.hostname;
  const domain = (getDomain(url) ?? host).toLowerCase().replace(/^www\./, '');
  return { url, domain };
}

export function collectSources(citations: readonly string[], inText: readonly string[]): Source[] {
  const seen = new Set<string>();
  const sources: Source[] = [];
  for (const raw of [...citations, ...inText]) {
    const source = sourceOf(raw);
    if (!source) continue;
    const identity = new URL(source.url).href;
    if (seen.has(identity)) continue;
    seen.add(identity);
    sources.push(source);
  }
  return sources;
}
