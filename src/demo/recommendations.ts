// The demo's recommendations, artifacts and outcomes: nothing here is written by hand. For each
// active brand whose organization sees recommendations through the API (Pro plan, API add-on), the
// generator runs as of a few moments of the demo history (`GENERATIONS`), the simulated engine
// drafts the new recommendations' artifacts, an operator's script (`ACTS`) starts, implements,
// dismisses and deletes some of them and reviews their artifacts, and the measurer finally runs
// as of the seeding day. Findings that stop holding between two generations are superseded by the
// generator itself. Every id comes from the demo's seeded stream, so a seeding day writes the
// same rows (docs/recommendations.md, "The demo").
import { loadConfig } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { PLANS } from '../db/organizations.ts';
import { reviewArtifact } from '../db/recommendation-artifacts.ts';
import { deleteRecommendation, liveFindings } from '../db/recommendations.ts';
import { ARTIFACT_TYPE } from '../domain/artifact-drafts.ts';
import { createEngines, type Engine } from '../monitoring/engines/index.ts';
import { artifactId, draftGeneration } from '../recommendations/artifacts.ts';
import { generateRecommendations } from '../recommendations/generate.ts';
import { type Action, changeStatus } from '../recommendations/lifecycle.ts';
import { measureOutcomes } from '../recommendations/outcomes.ts';
import { ORGS } from './catalog.ts';
import type { Prng } from './prng.ts';
import { DAY_MS } from './timeline.ts';
import type { CatalogIds } from './write-catalog.ts';

/** When the generator ran, in days before the seeding day: at 20:00 UTC, after that day's runs. */
export const GENERATIONS = [85, 71, 57, 43, 29, 15, 1] as const;
const GENERATION_HOUR_MS = 20 * 3_600_000;

interface Act {
  /** After which generation (an index into GENERATIONS), and how many days after it. */
  generation: number;
  daysAfter: number;
  action: Action | 'delete';
  /** Picks the first open recommendation with a drafted artifact (else the first open one)… */
  drafted?: boolean;
  /** …or the last open one (lowest score). */
  last?: boolean;
  reason?: string;
  /** The artifact's review, the day of the act. */
  review?: 'ready' | 'published';
}

// Open recommendations are picked highest score first (then by finding key): the operator acts on
// the top of the list. The first implementation is long enough ago for its outcome to be measured
// by the seeding day; the second is not (the current window has not ended).
const ACTS: readonly Act[] = [
  { generation: 0, daysAfter: 1, action: 'implement', drafted: true, review: 'published' },
  {
    generation: 0,
    daysAfter: 2,
    action: 'dismiss',
    reason: 'Covered by the agency campaign that already runs on this.',
  },
  { generation: 0, daysAfter: 3, action: 'start', drafted: true, review: 'ready' },
  { generation: 4, daysAfter: 1, action: 'implement' },
  { generation: 5, daysAfter: 1, action: 'delete', last: true },
];

const DRAFTED: ReadonlySet<string> = new Set(Object.keys(ARTIFACT_TYPE));

/**
 * The drafting engine of the demo: the simulated one, with its defaults, whatever the operator's
 * environment configures (the demo's drafts never depend on it).
 */
function simulatedDrafter(): Engine {
  const engine = createEngines(loadConfig({}).engines).get('simulated');
  if (!engine) throw new Error('the simulated engine is always configured');
  return engine;
}

/** The brand's open generated recommendations, highest score first. */
async function openRecommendations(db: Db, orgId: number, brandId: number) {
  const live = await liveFindings(db, orgId, brandId);
  return live
    .filter((r) => r.status === 'open')
    .sort((a, b) => b.score - a.score || (a.finding_key < b.finding_key ? -1 : 1));
}

async function act(db: Db, brand: { orgId: number; id: number }, a: Act, at: Date, prng: Prng) {
  const open = await openRecommendations(db, brand.orgId, brand.id);
  const target = a.last
    ? open.at(-1)
    : ((a.drafted ? open.find((r) => DRAFTED.has(r.rec_type)) : undefined) ?? open[0]);
  if (!target) return;
  if (a.action === 'delete') {
    await deleteRecommendation(db, brand.orgId, target.id, at.toISOString());
    return;
  }
  await changeStatus(db, brand.orgId, target.id, a.action, {
    at,
    now: at,
    reason: a.reason,
    newId: () => prng.uuid(),
  });
  const type = target.rec_type;
  if (a.review && DRAFTED.has(type)) {
    const artifact = artifactId(target.id, ARTIFACT_TYPE[type as keyof typeof ARTIFACT_TYPE]);
    await reviewArtifact(db, brand.orgId, artifact, a.review, at.toISOString());
  }
}

export async function writeRecommendations(
  db: Db,
  ids: CatalogIds,
  anchor: number,
  prng: Prng,
): Promise<void> {
  const drafter = simulatedDrafter();
  // The organizations whose keys may list recommendations: the API add-on and the Pro plan or higher.
  const seeing = new Set(
    ORGS.filter((o) => o.apiAccess && PLANS.indexOf(o.plan) >= PLANS.indexOf('pro')).map((o) => o.slug),
  );
  // Active brands only: a paused, archived or merged one would leave recommendations no run follows.
  for (const brand of ids.brands.filter((b) => seeing.has(b.spec.org) && b.spec.status === 'active')) {
    const stream = prng.derive(`brand/${brand.spec.name}`);
    for (const [index, daysAgo] of GENERATIONS.entries()) {
      const at = new Date(anchor - daysAgo * DAY_MS + GENERATION_HOUR_MS);
      const generation = await generateRecommendations(db, { orgId: brand.orgId, brandId: brand.id }, at, {
        newId: () => stream.uuid(),
      });
      await draftGeneration(db, brand.orgId, generation, drafter, at);
      for (const a of ACTS.filter((x) => x.generation === index)) {
        await act(db, brand, a, new Date(at.getTime() + a.daysAfter * DAY_MS), stream);
      }
    }
  }
  for (const slug of seeing) {
    const orgId = ids.orgs.get(slug);
    if (orgId !== undefined) await measureOutcomes(db, { orgId, at: new Date(anchor) });
  }
}
