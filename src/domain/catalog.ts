import { getDomain } from 'tldts';

// The rules for what an operator types: names, websites, aliases, external keys and prompt texts.
// Each returns the normalised value or throws InvalidInput with a message that says what to type
// instead. The data layer applies them again, so every writer (CLI, demo, import) gets the same
// rules.

export class InvalidInput extends Error {
  override name = 'InvalidInput';
}

/** Whether two names are one, whatever their letters' case (in any script). */
export const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The code of the first control character (`isControl`) in `text`, or undefined. */
export function controlCharacter(text: string): number | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isControl(code)) return code;
  }
  return undefined;
}

/**
 * C0 and C1 control characters (U+009B opens an escape sequence as ESC [ does), DEL, and the line
 * and paragraph separators, which end a line wherever it is shown.
 */
export function isControl(code: number): boolean {
  return code < 32 || (code >= 127 && code <= 159) || code === 0x2028 || code === 0x2029;
}

/**
 * Characters as a person counts them (code points, as PostgreSQL's `varchar` and JSON Schema's
 * `maxLength` do): `.length` counts UTF-16 units, so 150 emoji were "over 200".
 */
export const characters = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** A display name: trimmed, 1–200 characters, one line. */
export function validName(value: string, what = 'name'): string {
  const name = value.trim().replace(/\s+/g, ' ');
  if (!name) throw new InvalidInput(`the ${what} must not be empty`);
  const length = characters(name);
  if (length > 200) throw new InvalidInput(`the ${what} must be at most 200 characters (got ${length})`);
  if (controlCharacter(value.trim()) !== undefined)
    throw new InvalidInput(`the ${what} must be a single line of text`);
  return name;
}

/**
 * A brand's website: an http(s) address whose host has a registrable domain. A bare domain
 * ("acme.com") is accepted and given https://; the result has no trailing slash on a bare host.
 */
export function validWebsite(value: string): string {
  const raw = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new InvalidInput(`"${value}" is not a website address; use e.g. https://www.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidInput(`the website must be an http or https address, got "${url.protocol}"`);
  }
  if (!getDomain(url.hostname)) {
    throw new InvalidInput(`"${url.hostname}" is not a public domain name; use e.g. https://www.example.com`);
  }
  if (url.username || url.password)
    throw new InvalidInput('the website must not contain a user name or password');
  const text = url.href;
  return url.pathname === '/' && !url.search && !url.hash ? text.slice(0, -1) : text;
}

/** Aliases from a comma-separated list: each a valid name, duplicates (ignoring case) dropped. */
export function validAliases(values: readonly string[], owner?: string): string[] {
  const seen = new Set(owner ? [owner.toLowerCase()] : []);
  const aliases: string[] = [];
  for (const value of values) {
    if (!value.trim()) continue;
    const alias = validName(value, 'alias');
    if (seen.has(alias.toLowerCase())) continue;
    seen.add(alias.toLowerCase());
    aliases.push(alias);
  }
  if (aliases.length > 50) throw new InvalidInput(`at most 50 aliases are allowed (got ${aliases.length})`);
  return aliases;
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/**
 * An operator's identifier for a brand, category or prompt: 1–128 letters, digits and . _ : / -,
 * not all digits (a number always means a Sightline id).
 */
export function validExternalKey(value: string): string {
  const key = value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/.test(key)) {
    throw new InvalidInput(
      `"${value}" is not a valid key: use 1-128 letters, digits and . _ : / - (starting with a letter or digit)`,
    );
  }
  if (/^\d+$/.test(key))
    throw new InvalidInput(`"${value}" is not a valid key: a key must not be all digits (numbers are ids)`);
  return key;
}

/** A prompt: the question asked of the engines, 1–2000 characters. */
export function validPromptText(value: string): string {
  const text = value.trim().replace(/\s+/g, ' ');
  if (!text) throw new InvalidInput('the prompt text must not be empty');
  // PostgreSQL's text cannot hold it (answer-line.ts refuses it in answers for the same reason).
  if (text.includes('\u0000'))
    throw new InvalidInput('the prompt text must not contain the NUL character (\\u0000)');
  // Sent to the engines and printed by the CLI: a terminal would act on an escape or a bell.
  const control = controlCharacter(text);
  if (control !== undefined) {
    const code = control.toString(16).toUpperCase().padStart(4, '0');
    throw new InvalidInput(`the prompt text must not contain a control character (U+${code})`);
  }
  const length = characters(text);
  if (length > 2000)
    throw new InvalidInput(`the prompt text must be at most 2000 characters (got ${length})`);
  return text;
}

export const BRAND_STATUSES = ['active', 'paused', 'archived'] as const;
export type EditableBrandStatus = (typeof BRAND_STATUSES)[number];

/** A reference typed by an operator: digits are an id, anything else an external key. */
export type Ref = number | string;

export function parseRef(value: string): Ref {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const id = Number(text);
    if (id < 1 || !Number.isSafeInteger(id)) throw new InvalidInput(`"${value}" is not a valid id`);
    return id;
  }
  return validExternalKey(text);
}

/**
 * Whether free text (a description, a reason) holds a control character other than its line
 * breaks and tabs: an escape or a bell would act on the terminal that prints it.
 */
export function hasStrayControl(text: string): boolean {
  return controlCharacter(text.replace(/[\t\n\r]/g, ' ')) !== undefined;
}
