import type { Span } from './structure.ts';

// A lead that names no known brand may name an unknown one: a possible new competitor. It must look
// like a name (one to four words, capitalised or domain-like) and not like a heading of an ordinary
// list ("Pricing", "Best overall", "Ease of use").

const GENERIC = new Set(
  `
  vs versus
  best top overall winner runner runners pick picks choice choices option options alternative
  alternatives honorable honourable mention mentions recommendation recommendations verdict summary
  conclusion overview introduction note notes tip tips why how what when where which who step
  steps key feature features pricing price prices cost costs plan plans tier tiers free paid budget
  pros cons pro con advantages disadvantages benefits drawbacks downsides strengths weaknesses
  ease use usability support integration integrations security performance scalability speed
  reliability value collaboration automation reporting analytics customization customisation
  setup onboarding learning curve interface ui ux design mobile desktop api apis platform platforms
  tool tools software app apps service services solution solutions product products vendor vendors
  company companies brand brands name category criteria factor factors consideration considerations
  comparison compare table rating ratings score scores review reviews rank ranking final bottom line
  small large medium enterprise enterprises teams team startups startup business businesses users
  beginners developers agencies freelancers other others more also additional further similar
  good great better excellent strong popular ideal suited best-for
  `
    .trim()
    .split(/\s+/),
);

const CONNECTORS = new Set([
  '&',
  '+',
  'of',
  'and',
  'for',
  'by',
  'the',
  'de',
  'la',
  'le',
  'der',
  'die',
  'das',
]);
const DOMAIN_LIKE = /^[\p{L}\p{N}-]+\.(?:com|io|ai|app|co|so|net|org|dev|xyz|tech|me|us|uk|de|fr)$/iu;
const STRIP =
  /\*\*|__|[[\]`"“”‘’®™]|\(\s*\)|\s*\([^)]*\)\s*$|[\s:.,;!–—-]+$|^(?:\s|\p{Extended_Pictographic}|\u200d|\ufe0f)+/gu;

function isNameWord(word: string, first: boolean): boolean {
  if (DOMAIN_LIKE.test(word)) return true;
  if (!first && CONNECTORS.has(word.toLowerCase())) return true;
  // Capitalised (Asana), internally capitalised (iPhone, eBay) or a number (365).
  return /^[\p{Lu}\p{N}]/u.test(word) || /^\p{Ll}+\p{Lu}/u.test(word);
}

/** The name a lead gives, if it looks like one. */
export function candidateName(text: string, leads: readonly Span[]): string | null {
  for (const lead of leads) {
    const name = text.slice(lead.start, lead.end).replace(STRIP, '').replace(/\s+/g, ' ').trim();
    const words = name.split(' ');
    if (!name || name.length > 40 || words.length > 4) continue;
    if (/[?!;:]|\.\s/.test(name)) continue;
    if (words.some((w) => GENERIC.has(w.toLowerCase()))) continue;
    if (words.every((w, i) => isNameWord(w, i === 0)) && /\p{L}/u.test(name)) return name;
  }
  return null;
}
