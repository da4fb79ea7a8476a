import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/schema';
import { sourceOf } from './analyzer/index.ts';

// One line of an answers file (NDJSON): a captured answer and where it belongs. The schema is the
// format's definition — docs/ingest.schema.json is this schema, and a test keeps them identical.
// `normalizeAnswerLine` checks one line on its own (shape, dates, outcome rules); what the names
// refer to is checked against the database by the import.

export const RUN_STATUSES = ['completed', 'running', 'failed', 'cancelled'] as const;
export const METHODOLOGIES = ['sample_v1', 'legacy'] as const;
export const OUTCOMES = ['ok', 'error', 'empty', 'no_result'] as const;

// An id past 2^53 has no exact JavaScript number, and one past PostgreSQL's bigint is an error of
// the database's rather than a line's.
const Id = () => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

const Ref = (what: string) =>
  Type.Union([Id(), Type.String({ minLength: 1, maxLength: 128 })], {
    description: `The ${what}: its Sightline id (a number) or its external key (a string).`,
  });

const literals = (values: readonly string[], description: string, fallback: string) =>
  Type.String({ enum: [...values], description: `${description} Default: ${fallback}.` });

export const AnswerLineSchema = Type.Object(
  {
    organization: Type.Union([Id(), Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$' })], {
      description:
        'The organization: its slug (e.g. "acme") or id. May be left out when the import is given --org.',
    }),
    brand: Type.Optional(Ref("brand (optional; when given it must be the prompt's brand)")),
    category: Type.Optional(Ref("category (optional; when given it must be the prompt's category)")),
    prompt: Ref('prompt that was asked'),
    run: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^\\S(?:.*\\S)?$',
      description:
        'External id of the monitoring run; lines with the same run id form one run of one category.',
    }),
    runStatus: Type.Optional(literals(RUN_STATUSES, 'State of the run.', 'completed')),
    methodology: Type.Optional(literals(METHODOLOGIES, 'How the answer was sampled.', 'sample_v1')),
    externalKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "This answer's own id, unique in the organization. Default: derived from run, prompt, model, surface and capturedAt.",
      }),
    ),
    model: Type.String({
      pattern: '^[a-z0-9][a-z0-9_.:-]{0,63}$',
      description: 'Answer-engine identifier, e.g. chatgpt, perplexity, gemini.',
    }),
    modelLabel: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Display name of the engine. Default: a known label or the model id.',
      }),
    ),
    surface: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
        description: 'How the answer was obtained, e.g. api, ui_scrape, ai_overview. Default: api.',
      }),
    ),
    outcome: Type.Optional(
      literals(
        OUTCOMES,
        'What the engine returned: an answer, an error, a blank answer, or no answer at all.',
        'ok',
      ),
    ),
    sampleCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10000,
        description: 'Identical asks merged into this answer (its weight). Default: 1.',
      }),
    ),
    capturedAt: Type.String({
      format: 'date-time',
      description: 'When the answer was captured: ISO 8601 with a time zone.',
    }),
    answerText: Type.Optional(
      Type.Union([Type.String({ maxLength: 200000 }), Type.Null()], {
        description:
          'The answer as text (markdown welcome). Required when outcome is ok, except for legacy answers.',
      }),
    ),
    answerHtml: Type.Optional(
      Type.Union([Type.String({ maxLength: 1000000 }), Type.Null()], {
        description:
          'The answer as HTML, when captured; its lists, tables and links are read by the analyzer.',
      }),
    ),
    citations: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
        maxItems: 500,
        description: 'Citation URLs shown with the answer, in order (http or https).',
      }),
    ),
  },
  {
    title: 'Sightline answer line',
    description: 'One captured answer per line of an NDJSON file for `sightline runs import`.',
    additionalProperties: false,
  },
);

type RawLine = Static<typeof AnswerLineSchema>;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type Methodology = (typeof METHODOLOGIES)[number];
export type Outcome = (typeof OUTCOMES)[number];

/** A line with its defaults filled in and its timestamp in canonical form. */
export interface AnswerLine {
  organization: number | string;
  brand: number | string | null;
  category: number | string | null;
  prompt: number | string;
  run: string;
  runStatus: RunStatus;
  methodology: Methodology;
  externalKey: string | null;
  model: string;
  modelLabel: string;
  surface: string;
  outcome: Outcome;
  sampleCount: number;
  capturedAt: string;
  answerText: string | null;
  answerHtml: string | null;
  citations: string[];
}

const MODEL_LABELS: Record<string, string> = {
  chatgpt: 'ChatGPT',
  perplexity: 'Perplexity',
  gemini: 'Gemini',
  claude: 'Claude',
  copilot: 'Copilot',
  google_ai_overview: 'Google AI Overview',
  google_ai_mode: 'Google AI Mode',
  grok: 'Grok',
  meta_ai: 'Meta AI',
  deepseek: 'DeepSeek',
};

/** The label an answer of `model` is given when its line names none (its id, for a model not listed). */
export const defaultModelLabel = (model: string): string => MODEL_LABELS[model] ?? model;

const validator = Compile(AnswerLineSchema);

// What to say about a field whose value the schema refuses: the rule, in the reader's terms.
const FIELD_RULES: Record<string, string> = {
  organization: 'must be the organization slug (e.g. "acme") or its id (a whole number from 1 to 2^53 − 1)',
  brand: "must be a brand id (a whole number from 1 to 2^53 − 1) or the brand's external key (string)",
  category:
    "must be a category id (a whole number from 1 to 2^53 − 1) or the category's external key (string)",
  prompt: "must be a prompt id (a whole number from 1 to 2^53 − 1) or the prompt's external key (string)",
  run: 'must be a non-empty run id of at most 128 characters without leading or trailing spaces',
  runStatus: `must be one of ${RUN_STATUSES.join(', ')}`,
  methodology: `must be one of ${METHODOLOGIES.join(', ')}`,
  externalKey: 'must be a non-empty string of at most 200 characters',
  model: 'must be a lower-case engine id such as "chatgpt" (letters, digits, _ . : -)',
  modelLabel: 'must be a non-empty string of at most 100 characters',
  surface: 'must be a lower-case id such as "api" or "ui_scrape" (letters, digits, _ -)',
  outcome: `must be one of ${OUTCOMES.join(', ')}`,
  sampleCount: 'must be a whole number from 1 to 10000',
  capturedAt: 'must be an ISO 8601 date-time with a time zone, e.g. "2026-03-01T09:30:00Z"',
  answerText: 'must be a string (at most 200000 characters) or null',
  answerHtml: 'must be a string (at most 1000000 characters) or null',
  citations: 'must be an array of at most 500 URLs',
};

const fieldValidators = new Map(
  Object.entries(AnswerLineSchema.properties).map(([name, schema]) => [name, Compile(schema)]),
);

/** One message per offending field (the whole-line check alone would stop at a few errors). */
function schemaErrors(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return ['each line must be a JSON object'];
  if (validator.Check(value)) return [];
  const messages: string[] = [];
  for (const name of AnswerLineSchema.required) {
    if (!(name in value)) messages.push(`"${name}" is missing`);
  }
  for (const [name, field] of Object.entries(value)) {
    const check = fieldValidators.get(name);
    if (!check) messages.push(`unknown field "${name}" (see docs/ingest.md for the fields of a line)`);
    else if (!check.Check(field)) messages.push(`"${name}" ${FIELD_RULES[name] ?? 'is not valid'}`);
  }
  return messages;
}

/** The line's own problems (those that need no database), or the normalised line. */
export function normalizeAnswerLine(value: unknown, now: Date): { line: AnswerLine } | { errors: string[] } {
  const shape = schemaErrors(value);
  if (shape.length > 0) return { errors: shape };
  const raw = value as RawLine;
  const errors: string[] = [];
  // PostgreSQL's text cannot hold U+0000 and SQLite's can: refused on both, so a file imports
  // the same way on either database (and names the field, not a database error). A lone surrogate
  // (JSON's "\ud800" escapes one) has no UTF-8 form: either database would store U+FFFD in its
  // place, and a run key stored so no longer matches the key its answers name.
  for (const [name, field] of Object.entries(raw)) {
    const texts = (Array.isArray(field) ? field : [field]).filter((text) => typeof text === 'string');
    if (texts.some((text) => text.includes('\u0000')))
      errors.push(`"${name}" must not contain the NUL character (\\u0000)`);
    if (texts.some((text) => !text.isWellFormed()))
      errors.push(`"${name}" must be valid Unicode (it holds a lone surrogate, \\ud800–\\udfff)`);
  }
  const captured = Date.parse(raw.capturedAt);
  if (Number.isNaN(captured)) errors.push(`"capturedAt" ${FIELD_RULES.capturedAt}`);
  else if (captured > now.getTime() + 5 * 60_000)
    errors.push(`"capturedAt" ${raw.capturedAt} is in the future`);
  // The analytics number days from 1970-01-01 (domain/blocks.ts), and PostgreSQL has no year 0.
  else if (captured < 0) errors.push(`"capturedAt" ${raw.capturedAt} is before 1970-01-01T00:00:00Z`);
  // The schema admitted only the listed values.
  const outcome = (raw.outcome ?? 'ok') as Outcome;
  const methodology = (raw.methodology ?? 'sample_v1') as Methodology;
  const text = raw.answerText ?? null;
  const blank = text === null || text.trim() === '';
  if (outcome === 'ok' && blank && methodology !== 'legacy') {
    errors.push('"answerText" is required when outcome is ok (use outcome "empty" for a blank answer)');
  }
  if (outcome === 'empty' && !blank)
    errors.push('"answerText" must be blank when outcome is empty (use outcome "ok")');
  const citations = raw.citations ?? [];
  if (outcome !== 'ok' && citations.length > 0)
    errors.push(`"citations" must be empty when outcome is ${outcome}`);
  citations.forEach((url, i) => {
    if (!sourceOf(url)) errors.push(`"citations"[${i}] "${url.slice(0, 80)}" is not an http(s) URL`);
  });
  if (raw.externalKey !== undefined && raw.externalKey.trim() === '')
    errors.push('"externalKey" must not be blank');
  if (errors.length > 0) return { errors };
  return {
    line: {
      organization: raw.organization,
      brand: raw.brand ?? null,
      category: raw.category ?? null,
      prompt: raw.prompt,
      run: raw.run,
      runStatus: (raw.runStatus ?? 'completed') as RunStatus,
      methodology,
      externalKey: raw.externalKey?.trim() ?? null,
      model: raw.model,
      modelLabel: raw.modelLabel ?? defaultModelLabel(raw.model),
      surface: raw.surface ?? 'api',
      outcome,
      sampleCount: raw.sampleCount ?? 1,
      capturedAt: new Date(captured).toISOString(),
      answerText: text,
      answerHtml: raw.answerHtml ?? null,
      citations,
    },
  };
}
