import { KEY_PREFIX } from './keys.ts';

// A key that reaches a log line by mistake (in a query string, a path, a User-Agent, a request
// id, an error message) is masked there, whatever field carries it. Text is read as it would be
// once percent-decoded, to any depth, so `sl%5Flive%5F…` or `sl%255Flive…` are keys too. Only the
// key's public identifier, the 8 characters after the prefix, is left readable.

// A stretch of text that could spell a key or part of one, literally or percent-encoded. It never
// spans a quote, colon or comma, so it stays inside one JSON string of a log line.
const RUN = /(?:%(?:25)*[0-9A-Fa-f]{2}|[0-9A-Za-z_-])+/g;
const ESCAPE = /%([0-9A-Fa-f]{2})/g;
// The prefixed form, malformed or not (the rest is secret however it is broken), and the bare
// `<id>_<secret>` form of a key whose prefix was cut off. The prefix alone, followed by nothing a
// key holds, is no key (a message naming it: "the 8 characters after sl_live_").
const KEY = new RegExp(
  `(${KEY_PREFIX}(?=[0-9A-Za-z_-])[0-9A-Za-z]{0,8})[0-9A-Za-z_-]*|([0-9A-Za-z]{8})_[0-9A-Za-z]{32,}`,
  'gi',
);
// What a text must hold for a key to be in it: an escape (decoding could spell anything), the
// prefix's "_live_", or an underscore before a bare key's 32 characters. Most log lines hold none,
// and this scan costs ~0.05 µs where decoding and testing each of a line's runs costs ~3.5.
const MAYBE_KEY = new RegExp(`%|_(?:${KEY_PREFIX.slice(KEY_PREFIX.indexOf('_') + 1)}|[0-9a-z]{32})`, 'i');
// Masked text is written back escaped wherever decoding produced anything outside this set, so a
// log line stays valid JSON.
const SAFE = /[^0-9A-Za-z._~-]/g;

function decodeFully(text: string): string {
  let decoded = text;
  for (let previous = ''; decoded !== previous && decoded.includes('%'); ) {
    previous = decoded;
    decoded = decoded.replace(ESCAPE, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  return decoded;
}

function hasKey(text: string): boolean {
  KEY.lastIndex = 0;
  return KEY.test(text);
}

/** `text` with every key in it, plain or percent-encoded, masked down to its identifier. */
export function redactSecrets(text: string): string {
  if (!MAYBE_KEY.test(text)) return text;
  return text.replace(RUN, (run) => {
    const decoded = decodeFully(run);
    if (!hasKey(decoded)) return run;
    const masked = decoded.replace(KEY, (_, prefixed: string | undefined, bare: string | undefined) =>
      prefixed ? `${prefixed}…[redacted]` : `${bare}_…[redacted]`,
    );
    return masked.replace(SAFE, (char) =>
      '…[]'.includes(char) ? char : `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
    );
  });
}

/** Whether `text` carries a key, plain or percent-encoded. */
export function containsKey(text: string): boolean {
  return redactSecrets(text) !== text;
}
