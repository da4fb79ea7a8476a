// A recommendation's drafted artifact: a content brief for a content gap, an outreach note for
// citation outreach (docs/recommendations.md, "Artifacts"). An engine writes it through the
// monitoring engine layer (its limits, retries and error classes), counted against the
// organization's monthly ask budget; without an engine, or when the engine fails and there is no
// draft yet, the artifact is the template filled from the data, and its first line says so.
import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { EnginesConfig } from '../config.ts';
import { findBrandRef } from '../db/brands.ts';
import type { Db } from '../db/connect.ts';
import {
  budgetSpent,
  countAsk,
  findOrgMonitoring,
  type OrgMonitoring,
  uncountAsk,
} from '../db/monitoring.ts';
import {
  type ArtifactRow,
  claimDrafting,
  type DraftWrite,
  findArtifact,
  insertDraft,
  releaseDrafting,
  replaceDraft,
} from '../db/recommendation-artifacts.ts';
import { findRecommendation } from '../db/recommendations.ts';
import type { RecommendationsTable } from '../db/types.ts';
import {
  ARTIFACT_TYPE,
  type ArtifactType,
  draftHeading,
  draftSubject,
  draftValues,
  fillTemplate,
} from '../domain/artifact-drafts.ts';
import { InvalidInput } from '../domain/catalog.ts';
import { budgetMonth } from '../domain/schedule.ts';
import { storableText } from '../domain/storable-text.ts';
import type { MonitorLog } from '../monitoring/asks.ts';
import {
  type AskResult,
  type Engine,
  type EngineName,
  NO_TURN,
  type Turn,
} from '../monitoring/engines/index.ts';
import type { Generation } from './generate.ts';
import { DRAFT_TEXTS } from './prompts.ts';

/** The columns of a recommendation a draft reads: its identity, its brand and its evidence. */
export type DraftableRecommendation = Pick<
  Selectable<RecommendationsTable>,
  'id' | 'org_id' | 'brand_id' | 'rec_type' | 'evidence'
>;

export interface DraftOptions {
  /**
   * Write a fresh draft over the existing one while it is still a `draft` (the operator's
   * `recommendations draft`); a `ready` or `published` artifact is refused. Without it an
   * existing artifact is kept, except that a template is replaced once an engine drafts.
   */
  regenerate?: boolean;
  log?: MonitorLog;
  /**
   * Stops the drafting (the operator's Ctrl-C): an ask in flight is given up and stays counted (the
   * vendor may have been paid), nothing is written, and the artifact's claim is let go at once,
   * so the next drafter need not wait for it to run out.
   */
  signal?: AbortSignal;
}

/** The drafting was stopped by its signal; nothing was written for the artifact it names. */
export class DraftInterrupted extends Error {
  constructor(signal: AbortSignal, what: string) {
    super(`interrupted (${String(signal.reason)}) while drafting ${what}: nothing was written for it`);
    this.name = 'DraftInterrupted';
  }
}

export interface DraftOutcome {
  artifactId: string;
  artifactType: ArtifactType;
  /** `kept`: an existing artifact was left as it was. */
  action: 'created' | 'updated' | 'kept';
  /** The stored artifact's model: the vendor's name for it, or '' for a template. */
  generatedByModel: string;
  generationPromptVersion: string;
  /** Why the engine wrote nothing (its failure, a refusal, the budget); absent otherwise. */
  engineFailure?: string;
}

/**
 * The artifact's id, fixed by its recommendation and type: an RFC 9562 version-8 UUID from a
 * SHA-256 of the two, so every drafter of the same artifact writes the same row.
 */
export function artifactId(recommendationId: string, artifactType: ArtifactType): string {
  const hex = createHash('sha256')
    .update(`recommendation-artifact/${recommendationId}/${artifactType}`)
    .digest('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The engine configured to draft (SIGHTLINE_DRAFT_ENGINE) among the ones built, or null. */
export function draftEngine(config: EnginesConfig, engines: ReadonlyMap<EngineName, Engine>): Engine | null {
  return (config.draftEngine && engines.get(config.draftEngine)) || null;
}

/** Everything a draft is made of, read from the recommendation's own row and its own brand. */
export async function draftInputs(db: Db, recommendation: DraftableRecommendation) {
  // Loaded when a draft is made: its schema checker is ~500 modules (TypeBox), a sixth of a
  // second of start-up that `recommendations start` and `runs publish` need not pay to learn
  // that no draft is due.
  const { readDraftEvidence } = await import('../domain/recommendation-evidence.ts');
  const draft = readDraftEvidence(recommendation.rec_type, recommendation.evidence);
  if (draft === null) return null;
  // By the recommendation's organization and nothing else: a brand id of another organization
  // finds nothing, so no other organization's name can reach a prompt.
  const brand = await findBrandRef(db, recommendation.org_id, recommendation.brand_id);
  if (!brand) throw new InvalidInput(`recommendation ${recommendation.id} has no brand in its organization`);
  const artifactType = ARTIFACT_TYPE[draft.recType];
  const values = draftValues(brand, draft);
  const texts = DRAFT_TEXTS[artifactType];
  return {
    artifactType,
    values,
    subject: draftSubject(brand, draft),
    heading: draftHeading(draft),
    prompt: { version: texts.prompt.version, text: fillTemplate(texts.prompt.text, values) },
    template: texts.template,
  };
}

type Inputs = NonNullable<Awaited<ReturnType<typeof draftInputs>>>;

function failureOf(result: AskResult): string | undefined {
  if (result.outcome === 'error') return result.error ?? 'failed';
  if (result.outcome === 'no_result') return 'it declined to answer';
  if (result.outcome === 'empty') return 'it answered with no text';
  return undefined;
}

/** A content brief keeps the pages the engine drew on; a note to send has no place for them. */
function engineBody(inputs: Inputs, result: AskResult): string {
  if (inputs.artifactType !== 'content_brief' || result.sources.length === 0) return result.text;
  const sources = result.sources.map((s) => `- ${s.title ? `${s.title}: ` : ''}${s.url}`);
  return `${result.text}\n\n## Sources the engine drew on\n${sources.join('\n')}`;
}

/**
 * One ask for the draft in a turn the caller holds, counted against the month's budget first: a
 * body, or why there is none. An ask the engine's open circuit refused before sending anything is
 * given back to the month, as a monitoring ask is.
 */
async function askEngine(
  db: Db,
  org: OrgMonitoring,
  engine: Engine,
  turn: Turn,
  inputs: Inputs,
  { log, signal }: DraftOptions,
): Promise<{ body: string; model: string } | { failure: string }> {
  const orgId = org.orgId;
  // The month the ask is sent in, not the one the drafting is dated (`--at`): it is paid now.
  const month = budgetMonth(new Date(), org.timezone);
  if (!(await countAsk(db, orgId, month, org.monthlyAskBudget)))
    return { failure: budgetReached(org, month) };
  const result = await engine.ask({ prompt: inputs.prompt.text, draft: inputs.subject }, { turn, signal });
  if (result.retryInMs !== undefined) await uncountAsk(db, orgId, month);
  const failure = failureOf(result);
  log?.info(
    {
      event: 'artifact_asked',
      orgId,
      engine: engine.name,
      outcome: result.outcome,
      vendorModel: result.vendorModel,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      estimatedCostUsd: result.estimatedCostUsd,
    },
    `${engine.name} asked to draft a ${inputs.artifactType}: ${result.outcome}`,
  );
  if (failure !== undefined) return { failure };
  // A NUL from the vendor failed the write on PostgreSQL, and the paid-for draft was lost.
  return {
    body: storableText(engineBody(inputs, result)),
    model: storableText(result.vendorModel ?? `${engine.name}:${engine.model}`),
  };
}

const budgetReached = (org: OrgMonitoring, month: string) =>
  `monthly ask budget reached: ${org.monthlyAskBudget} asks in ${month} (${org.timezone})`;

function templateDraft(inputs: Inputs, notice: string, at: string): DraftWrite {
  return {
    ...inputs.heading,
    body: fillTemplate(inputs.template.text, { ...inputs.values, notice }),
    generatedByModel: '',
    generationPromptVersion: inputs.template.version,
    at,
  };
}

/** What a drafter holding the claim found: a draft another wrote meanwhile, or its engine's answer. */
type Claimed = { until: string } & (
  | { kept: ArtifactRow }
  | {
      kept?: undefined;
      current: ArtifactRow | undefined;
      asked: Awaited<ReturnType<typeof askEngine>>;
    }
);

/**
 * How long a drafter's claim on an artifact lasts: longer than an ask with its retries (three
 * attempts of up to two minutes, and their waits). A drafter that died holds it back this long.
 */
const DRAFT_CLAIM_MS = 15 * 60_000;

const NO_ENGINE =
  'Template: no engine is set to draft artifacts (SIGHTLINE_DRAFT_ENGINE), so this is filled from the data; complete the bracketed parts.';
const engineFailed = (engine: Engine, failure: string) =>
  `Template: the ${engine.name} engine could not draft this (${failure}), so this is filled from the data; complete the bracketed parts.`;

/**
 * Drafts the artifact a recommendation calls for (none for types other than content_gap and
 * citation_outreach), with `engine`, or from the template when it is null, at time `at`. Safe to
 * repeat: an artifact already drafted is kept (see `regenerate`), and two drafters racing write
 * one row.
 */
export async function draftArtifacts(
  db: Db,
  recommendation: DraftableRecommendation,
  engine: Engine | null,
  at: Date,
  options: DraftOptions = {},
): Promise<DraftOutcome[]> {
  const inputs = await draftInputs(db, recommendation);
  if (inputs === null) return [];
  const orgId = recommendation.org_id;
  const id = artifactId(recommendation.id, inputs.artifactType);
  const existing = await findArtifact(db, orgId, id);
  const outcome = (
    action: DraftOutcome['action'],
    row: Pick<ArtifactRow, 'generated_by_model' | 'generation_prompt_version'>,
    engineFailure?: string,
  ): DraftOutcome => ({
    artifactId: id,
    artifactType: inputs.artifactType,
    action,
    generatedByModel: row.generated_by_model,
    generationPromptVersion: row.generation_prompt_version,
    ...(engineFailure === undefined ? {} : { engineFailure }),
  });

  const refuseReviewed = (row: ArtifactRow | undefined) => {
    if (row && row.status !== 'draft' && options.regenerate) {
      throw new InvalidInput(`artifact ${id} is ${row.status}: a reviewed artifact is not drafted again`);
    }
  };
  refuseReviewed(existing);
  const upgradesTemplate =
    existing?.status === 'draft' && existing.generated_by_model === '' && engine !== null;
  if (existing && !options.regenerate && !upgradesTemplate) return [outcome('kept', existing)];

  const stamp = at.toISOString();
  /** Writes `draft` as the artifact, over `over` when there is one. */
  const write = async (
    draft: DraftWrite,
    over = existing,
    engineFailure?: string,
  ): Promise<DraftOutcome[]> => {
    let replaced = over !== undefined;
    let written = over
      ? await replaceDraft(db, orgId, id, draft, !options.regenerate)
      : await insertDraft(
          db,
          { id, orgId, recommendationId: recommendation.id, artifactType: inputs.artifactType },
          draft,
        );
    if (!written && !over && draft.generatedByModel !== '') {
      // A template written meanwhile (a drafter without an engine, or with no asks left, takes no
      // claim) must not keep out the draft the engine was just paid for.
      written = await replaceDraft(db, orgId, id, draft, true);
      replaced = true;
    }
    if (written) {
      const stored = {
        generated_by_model: draft.generatedByModel,
        generation_prompt_version: draft.generationPromptVersion,
      };
      return [outcome(replaced ? 'updated' : 'created', stored, engineFailure)];
    }
    // Another drafter wrote the row meanwhile (or reviewed it): theirs stands.
    const current = await findArtifact(db, orgId, id);
    if (!current) throw new Error(`artifact ${id} vanished while it was drafted`);
    return [outcome('kept', current, engineFailure)];
  };
  if (engine === null) return write(templateDraft(inputs, NO_ENGINE, stamp));
  // A claim that cannot be let go (the database busy) runs out by itself; the draft is written.
  const release = (until: string) =>
    releaseDrafting(db, orgId, id, until).catch((error: unknown) =>
      options.log?.warn(
        { event: 'artifact_claim_release_failed', orgId, artifactId: id, err: String(error) },
        `could not let go of the claim on artifact ${id}; it runs out by itself`,
      ),
    );

  /** The engine could not draft: what exists stays, a recommendation with nothing gets the template. */
  const failed = async (failure: string, current: ArtifactRow | undefined): Promise<DraftOutcome[]> => {
    options.log?.warn(
      {
        event: 'artifact_draft_failed',
        orgId,
        recommendationId: recommendation.id,
        engine: engine.name,
        reason: failure,
      },
      `${engine.name} could not draft the ${inputs.artifactType} of recommendation ${recommendation.id}: ${failure}`,
    );
    // A draft that exists stays: a failed attempt never replaces something better.
    if (current) return [outcome('kept', current, failure)];
    return write(templateDraft(inputs, engineFailed(engine, failure), stamp), current, failure);
  };
  const org = await findOrgMonitoring(db, orgId);
  if (!org) throw new InvalidInput(`organization ${orgId} does not exist`);
  // A month without asks left says so now, not after a wait for the engine's turn.
  const thisMonth = budgetMonth(new Date(), org.timezone);
  if (await budgetSpent(db, org, thisMonth)) return failed(budgetReached(org, thisMonth), existing);

  // One drafter asks: two generators at once (the worker's and a command's) both paid the engine
  // for one artifact. The claim is taken in a turn at the engine, so its time is the ask's and not
  // the wait for the engine, and held until the draft is written, so the next drafter sees it.
  const claimed = await engine.inTurn(
    inputs.prompt.text,
    async (turn): Promise<Claimed | null> => {
      const now = Date.now();
      const until = new Date(now + DRAFT_CLAIM_MS).toISOString();
      if (!(await claimDrafting(db, orgId, id, { now: new Date(now).toISOString(), until }))) return null;
      try {
        // Read again under the claim: a drafter that finished between the first read and the claim
        // has written what this one would ask for, and a person may have reviewed it meanwhile.
        const current = await findArtifact(db, orgId, id);
        refuseReviewed(current);
        if (
          current &&
          (current.generated_by_model !== '' || current.status !== 'draft') &&
          !options.regenerate
        ) {
          return { until, kept: current };
        }
        const asked = await askEngine(db, org, engine, turn, inputs, options);
        if (options.signal?.aborted) throw new DraftInterrupted(options.signal, `artifact ${id}`);
        return { until, current, asked };
      } catch (error) {
        await release(until);
        throw error;
      }
    },
    options.signal,
  );
  if (claimed === NO_TURN) throw new DraftInterrupted(options.signal as AbortSignal, `artifact ${id}`);
  if (claimed === null) {
    const held = `artifact ${id} is being drafted by another process (or one that stopped, whose claim lasts up to ${DRAFT_CLAIM_MS / 60_000} minutes)`;
    // Asked for a fresh draft, saying nothing would read as done.
    if (options.regenerate) throw new InvalidInput(`${held}: run this again once it has finished`);
    options.log?.info(
      {
        event: 'artifact_draft_claimed_elsewhere',
        orgId,
        recommendationId: recommendation.id,
        artifactId: id,
      },
      `${held}; left to it`,
    );
    return existing ? [outcome('kept', existing)] : [];
  }
  const { until } = claimed;
  try {
    if (claimed.kept) return [outcome('kept', claimed.kept)];
    const { current, asked } = claimed;
    if (!('failure' in asked)) {
      return await write(
        {
          ...inputs.heading,
          body: asked.body,
          generatedByModel: asked.model,
          generationPromptVersion: inputs.prompt.version,
          at: stamp,
        },
        current,
      );
    }
    return await failed(asked.failure, current);
  } finally {
    await release(until);
  }
}

/**
 * The artifacts of a generation's recommendations, one after the other (an engine's limits pace
 * them; only content gaps and outreach get one): the new ones', and the kept ones' that have none
 * (a generation killed while it drafted left them so) or only a template an engine can now replace.
 * A kept recommendation with an engine's draft is only read.
 */
export async function draftGeneration(
  db: Db,
  orgId: number,
  generation: Pick<Generation, 'created' | 'kept'>,
  engine: Engine | null,
  at: Date,
  options: Pick<DraftOptions, 'log' | 'signal'> = {},
): Promise<DraftOutcome[]> {
  const drafted: DraftOutcome[] = [];
  const unlessStopped = (recommendationId: string) => {
    if (options.signal?.aborted) {
      throw new DraftInterrupted(options.signal, `the artifacts of recommendation ${recommendationId}`);
    }
  };
  for (const recommendation of generation.created) {
    unlessStopped(recommendation.id);
    drafted.push(...(await draftArtifacts(db, recommendation, engine, at, options)));
  }
  for (const id of generation.kept) {
    unlessStopped(id);
    const recommendation = await findRecommendation(db, orgId, id);
    if (!recommendation) continue;
    const outcomes = await draftArtifacts(db, recommendation, engine, at, options);
    drafted.push(...outcomes.filter((o) => o.action !== 'kept'));
  }
  return drafted;
}
