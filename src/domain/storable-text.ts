/**
 * Text from outside (an engine's answer, the model name it reports, a URL it cites) as either
 * database can store it: without NUL characters (PostgreSQL's text cannot hold them, and they carry
 * nothing a reader sees) and with each lone surrogate made U+FFFD (it has no UTF-8 form; either
 * database would store U+FFFD in its place). Cut to `maxLength` before the surrogates are mended:
 * a cut through a pair leaves a lone one.
 */
export function storableText(text: string, maxLength?: number): string {
  return text.replaceAll('\u0000', '').slice(0, maxLength).toWellFormed();
}
