import { createHash } from 'node:crypto';
import { describeRef } from '../db/catalog/refs.ts';
import { type AnswerLine, normalizeAnswerLine } from '../domain/answer-line.ts';
import type { Ref } from '../domain/catalog.ts';
import type { Lookups } from './lookups.ts';
import { MAX_LINE_BYTES, NotUtf8Line, OverlongLine } from './ndjson.ts';

// Reading an import's input and resolving each line: parsed, checked on its own, and what it names
// looked up inside its organization. Both passes of the import go through here.

/** The lines: an array, or a function that starts a fresh read of them (a file, twice). */
export type AnswerSource = readonly unknown[] | (() => AsyncIterable<unknown> | Iterable<unknown>);

type Parsed = { value: unknown } | { error: string };

export async function* readLines(source: AnswerSource): AsyncGenerator<{ line: number; parsed: Parsed }> {
  const items = typeof source === 'function' ? source() : source;
  let line = 0;
  for await (const item of items) {
    line++;
    if (item instanceof OverlongLine) {
      yield {
        line,
        parsed: {
          error: `longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB (${item.bytes.toLocaleString('en-US')} bytes): no answer line is; is the file NDJSON, one answer a line?`,
        },
      };
      continue;
    }
    if (item instanceof NotUtf8Line) {
      yield { line, parsed: { error: 'not UTF-8 text: save the file as UTF-8' } };
      continue;
    }
    if (typeof item !== 'string') {
      yield { line, parsed: { value: item } };
      continue;
    }
    if (!item.trim()) continue;
    try {
      // A byte-order mark some Windows tools put before the first line is not part of its JSON.
      const text = line === 1 && item.startsWith('\ufeff') ? item.slice(1) : item;
      yield { line, parsed: { value: JSON.parse(text) } };
    } catch (error) {
      yield {
        line,
        parsed: { error: `not valid JSON (${error instanceof Error ? error.message : String(error)})` },
      };
    }
  }
}

/** A stable key for an answer that brings none: the same capture always gets the same key. */
function derivedKey(line: AnswerLine, promptId: number): string {
  const identity = [line.run, promptId, line.model, line.surface, line.capturedAt].join('\u0000');
  return `auto:${createHash('sha256').update(identity).digest('base64url').slice(0, 32)}`;
}

export interface Resolved {
  line: AnswerLine;
  orgId: number;
  promptId: number;
  brandId: number;
  categoryId: number;
  key: string;
}

/** What one line names, looked up inside its organization; or why it cannot be. */
export async function resolve(
  lookups: Lookups,
  value: unknown,
  options: { organization?: Ref },
  now: Date,
): Promise<Resolved | { errors: string[] }> {
  const normalized = normalizeAnswerLine(
    options.organization !== undefined &&
      typeof value === 'object' &&
      value !== null &&
      !('organization' in value)
      ? { ...value, organization: options.organization }
      : value,
    now,
  );
  if ('errors' in normalized) return normalized;
  const { line } = normalized;
  const org = await lookups.organization(line.organization);
  if (!org) return { errors: [`organization ${JSON.stringify(line.organization)} does not exist`] };
  if (options.organization !== undefined) {
    const expected = await lookups.organization(options.organization);
    if (expected?.id !== org.id)
      return { errors: [`the line is for organization ${org.slug}, not ${String(options.organization)}`] };
  }
  const prompt = await lookups.prompt(org.id, line.prompt);
  if (!prompt) {
    return {
      errors: [
        `${describeRef('prompt', line.prompt)} does not exist in organization ${org.slug} (create it: npx sightline prompts create)`,
      ],
    };
  }
  const errors: string[] = [];
  if (line.brand !== null) {
    const brandId = await lookups.brandId(org.id, line.brand);
    if (brandId === undefined)
      errors.push(`${describeRef('brand', line.brand)} does not exist in organization ${org.slug}`);
    else if (brandId !== prompt.brandId)
      errors.push(`prompt ${prompt.id} belongs to brand ${prompt.brandId}, not brand ${brandId}`);
  }
  if (line.category !== null) {
    const categoryId = await lookups.categoryId(org.id, line.category);
    if (categoryId === undefined)
      errors.push(`${describeRef('category', line.category)} does not exist in organization ${org.slug}`);
    else if (categoryId !== prompt.categoryId) {
      errors.push(`prompt ${prompt.id} is in category ${prompt.categoryId}, not category ${categoryId}`);
    }
  }
  if (errors.length > 0) return { errors };
  return {
    line,
    orgId: org.id,
    promptId: prompt.id,
    brandId: prompt.brandId,
    categoryId: prompt.categoryId,
    key: line.externalKey ?? derivedKey(line, prompt.id),
  };
}

export const runKey = (orgId: number, externalId: string) => `${orgId}\u0000${externalId}`;
export const answerKey = (orgId: number, key: string) => `${orgId}\u0000${key}`;
