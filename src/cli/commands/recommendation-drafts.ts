// `sightline recommendations draft ID [--engine E]`: draft a recommendation's artifact again, with
// the configured drafting engine, the one named, or (with neither) from the template.
import { type Command, Option } from 'commander';
import { type Config, ENGINE_NAMES, type EngineName, loadConfig } from '../../config.ts';
import { findRecommendation } from '../../db/recommendations.ts';
import { InvalidInput } from '../../domain/catalog.ts';
import type { MonitorLog } from '../../monitoring/asks.ts';
import { createEngines, type Engine } from '../../monitoring/engines/index.ts';
import { type DraftOutcome, draftArtifacts, draftEngine } from '../../recommendations/artifacts.ts';
import { UsageError } from '../errors.ts';
import { abortOnSignals, monitorLogger, paidWrites, print, withDatabase } from './support.ts';

/** The engine SIGHTLINE_DRAFT_ENGINE names, for the commands that draft new recommendations' artifacts. */
export function configuredDrafter(config: Config, log: MonitorLog): Engine | null {
  // Most publications have no drafting engine: building every vendor client would be wasted.
  if (config.engines.draftEngine === undefined) return null;
  return draftEngine(config.engines, createEngines(config.engines, { logger: log }));
}

function describe(recommendationId: string, o: DraftOutcome): string {
  const by = o.generatedByModel ? `by ${o.generatedByModel}` : 'from the template';
  const verb = o.action === 'kept' ? 'Kept' : o.action === 'created' ? 'Drafted' : 'Redrafted';
  return `${verb} the ${o.artifactType} of recommendation ${recommendationId} ${by} (${o.generationPromptVersion}).`;
}

async function draft(id: string, options: { engine?: EngineName }): Promise<void> {
  const config = loadConfig();
  const log = monitorLogger(config.logLevel, 2);
  const name = options.engine ?? config.engines.draftEngine;
  let engine: Engine | null = null;
  if (name !== undefined) {
    engine = createEngines(config.engines, { logger: log }).get(name) ?? null;
    if (engine === null)
      throw new UsageError(`engine ${name} is not configured: set ${config.engines.engines[name].needs}`);
  }
  const { signal } = abortOnSignals();
  const outcomes = await withDatabase(async (db) => {
    const recommendation = await findRecommendation(db, null, id);
    if (!recommendation) throw new Error(`recommendation ${id} does not exist`);
    if (recommendation.superseded_at !== null || recommendation.status === 'superseded')
      throw new Error(`recommendation ${id} is superseded: draft its successor instead`);
    let drafted: DraftOutcome[];
    try {
      drafted = await draftArtifacts(db, recommendation, engine, new Date(), {
        regenerate: true,
        log,
        signal,
      });
    } catch (error) {
      if (error instanceof InvalidInput) throw new Error(`recommendation ${id}: ${error.message}`);
      throw error;
    }
    if (drafted.length === 0)
      throw new Error(
        `recommendation ${id} is a ${recommendation.rec_type} recommendation: only content_gap and citation_outreach ones have a drafted artifact`,
      );
    return drafted;
  }, paidWrites());
  for (const outcome of outcomes) print(describe(id, outcome));
  for (const outcome of outcomes) print(outcome.artifactId);
  const failed = outcomes.find((o) => o.engineFailure !== undefined);
  if (failed && engine)
    throw new Error(
      `${engine.name} could not draft the ${failed.artifactType}: ${failed.engineFailure}; ${failed.action === 'kept' ? 'the existing draft is unchanged' : 'the artifact is the template'}`,
    );
}

/** Adds `draft` to the `recommendations` group, creating the group if no other file has. */
export function register(program: Command): void {
  const group =
    program.commands.find((c) => c.name() === 'recommendations') ??
    program.command('recommendations').description("Recommendations from a brand's analytics.");
  group
    .command('draft')
    .description(
      "Draft a recommendation's artifact again (a content brief for a content gap, an outreach note for citation outreach); prints its id last.",
    )
    .argument('<id>', 'recommendation id')
    .addOption(
      new Option(
        '--engine <engine>',
        'engine that writes it (default SIGHTLINE_DRAFT_ENGINE; with neither, the template)',
      ).choices(ENGINE_NAMES),
    )
    .action((id: string, options: { engine?: EngineName }) => draft(id, options));
}
