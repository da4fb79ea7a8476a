import type { Selectable } from 'kysely';
import type { Db } from './connect.ts';
import type { RecommendationArtifactsTable } from './types.ts';

// The drafted artifacts of a recommendation. A drafted artifact's id is fixed by its
// recommendation and type, so two drafters racing write one row: the second insert finds the key
// taken and does nothing.

export type ArtifactRow = Selectable<RecommendationArtifactsTable>;

export function findArtifact(db: Db, orgId: number, id: string): Promise<ArtifactRow | undefined> {
  return db
    .selectFrom('recommendation_artifacts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface DraftWrite {
  title: string;
  body: string;
  targetUrl: string;
  generatedByModel: string;
  generationPromptVersion: string;
  at: string;
}

/**
 * Claims the drafting of artifact `id` until `until`: true when no one holds it, or the claim held
 * ran out before `now` (its drafter died). One statement, so of two drafters one wins.
 */
export async function claimDrafting(
  db: Db,
  orgId: number,
  id: string,
  claim: { now: string; until: string },
): Promise<boolean> {
  const claimed = await db
    .insertInto('artifact_draft_claims')
    .values({ id, org_id: orgId, until: claim.until })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ until: claim.until })
        .where('artifact_draft_claims.org_id', '=', orgId)
        .where('artifact_draft_claims.until', '<', claim.now),
    )
    .returning('id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** Lets go of a drafting claim this drafter holds (the one ending at `until`). */
export async function releaseDrafting(db: Db, orgId: number, id: string, until: string): Promise<void> {
  await db
    .deleteFrom('artifact_draft_claims')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('until', '=', until)
    .execute();
}

/** Inserts a new draft; false when a row with that id exists already (it is left as it was). */
export async function insertDraft(
  db: Db,
  artifact: { id: string; orgId: number; recommendationId: string; artifactType: string },
  draft: DraftWrite,
): Promise<boolean> {
  const inserted = await db
    .insertInto('recommendation_artifacts')
    .values({
      id: artifact.id,
      org_id: artifact.orgId,
      recommendation_id: artifact.recommendationId,
      artifact_type: artifact.artifactType,
      title: draft.title,
      body: draft.body,
      target_url: draft.targetUrl,
      status: 'draft',
      generated_by_model: draft.generatedByModel,
      generation_prompt_version: draft.generationPromptVersion,
      published_at: null,
      created_at: draft.at,
      updated_at: draft.at,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Writes a fresh draft over an artifact that is still a draft (a reviewed one is never
 * overwritten); `onlyTemplate` also requires it to be a template, so an engine's draft written
 * meanwhile by another drafter is kept. False when nothing was written.
 */
export async function replaceDraft(
  db: Db,
  orgId: number,
  id: string,
  draft: DraftWrite,
  onlyTemplate: boolean,
): Promise<boolean> {
  let update = db
    .updateTable('recommendation_artifacts')
    .set({
      title: draft.title,
      body: draft.body,
      target_url: draft.targetUrl,
      generated_by_model: draft.generatedByModel,
      generation_prompt_version: draft.generationPromptVersion,
      updated_at: draft.at,
    })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', '=', 'draft');
  if (onlyTemplate) update = update.where('generated_by_model', '=', '');
  return (await update.executeTakeFirst()).numUpdatedRows > 0n;
}

/** A person's review of a draft: `ready` to use, or `published` (then `publishedAt` is set). */
export async function reviewArtifact(
  db: Db,
  orgId: number,
  id: string,
  status: 'ready' | 'published',
  at: string,
): Promise<void> {
  await db
    .updateTable('recommendation_artifacts')
    .set({ status, published_at: status === 'published' ? at : null, updated_at: at })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .execute();
}
