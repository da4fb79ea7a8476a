import type { DatabaseSync, StatementSync } from 'node:sqlite';

// Synthetic monitoring data for the analytics benchmark, written straight through node:sqlite
// prepared statements (the API's own writers are far too slow for a million rows in minutes).
// Deterministic: the same options give the same rows. Derived data (prompt scores, analytics
// aggregates) is left to the service's refreshRunAggregates, which the benchmark times as well.

export interface TenantSpec {
  slug: string;
  categories: number;
  promptsPerCategory: number;
  competitorsPerCategory: number;
  days: number;
  runsPerDay: number;
  /** Leading days written with the legacy methodology. */
  legacyDays: number;
}

export interface GeneratedRun {
  id: number;
  finishedAt: number;
}

export interface GeneratedTenant {
  orgId: number;
  brandId: number;
  categoryIds: number[];
  promptIds: number[];
  runs: GeneratedRun[];
  responses: number;
}

const DAY_MS = 86_400_000;
const ENGINES = [
  ['chatgpt', 'ChatGPT', 'api'],
  ['chatgpt', 'ChatGPT', 'ui_scrape'],
  ['perplexity', 'Perplexity', 'api'],
  ['perplexity', 'Perplexity', 'ui_scrape'],
  ['gemini', 'Gemini', 'api'],
  ['gemini', 'Gemini', 'ui_scrape'],
  ['claude', 'Claude', 'api'],
  ['copilot', 'Copilot', 'api'],
  ['copilot', 'Copilot', 'ui_scrape'],
  ['google_ai_overview', 'Google AI Overview', 'ai_overview'],
] as const;
const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
const SITES = [
  'g2.com',
  'capterra.com',
  'reddit.com',
  'techradar.com',
  'zapier.com',
  'forbes.com',
  'pcmag.com',
  'gartner.com',
  'trustradius.com',
  'youtube.com',
  'medium.com',
  'bbc.co.uk',
  'theverge.com',
  'wired.com',
  'hubspot.com',
  'nerdwallet.com',
  'producthunt.com',
  'stackoverflow.com',
  'github.com',
  'wikipedia.org',
  'softwareadvice.com',
  'getapp.com',
  'investopedia.com',
  'cnet.com',
  'zdnet.com',
];
const HOSTS = ['', 'www.', 'blog.', 'docs.'];
const ANSWER =
  'Here are the tools most teams shortlist, with what sets each apart and where they fall short. '.repeat(2);

/** A small fast deterministic PRNG (mulberry32). */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
  };
}

function insertReturningId(statement: StatementSync, ...values: (string | number | null)[]): number {
  return Number(statement.run(...values).lastInsertRowid);
}

/** Writes one tenant: organization, brand, categories, prompts, competitors, runs and answers. */
export function generateTenant(
  db: DatabaseSync,
  spec: TenantSpec,
  end: number,
  seed: number,
  progress: (runsDone: number, runsTotal: number) => void,
): GeneratedTenant {
  const random = prng(seed);
  const created = new Date(end - (spec.days + 30) * DAY_MS).toISOString();
  const q = {
    org: db.prepare(
      `insert into organizations (slug, name, plan, api_access, timezone, free_report_used, created_at) values (?, ?, 'pro', 1, 'UTC', 0, ?)`,
    ),
    brand: db.prepare(
      `insert into brands (org_id, name, website, aliases, status, is_demo, executive_summary, monitoring_interval_hours, created_at, updated_at)
       values (?, ?, ?, '[]', 'active', 0, '', 12, ?, ?)`,
    ),
    category: db.prepare(
      `insert into categories (org_id, brand_id, name, description, is_archived, created_at) values (?, ?, ?, '', 0, ?)`,
    ),
    prompt: db.prepare(
      `insert into prompts (org_id, brand_id, category_id, text, is_monitored, is_archived, created_at) values (?, ?, ?, ?, ?, 0, ?)`,
    ),
    competitor: db.prepare(
      `insert into competitors (org_id, brand_id, category_id, name, canonical_key, canonical_name, aliases, created_at)
       values (?, ?, ?, ?, ?, ?, '[]', ?)`,
    ),
    run: db.prepare(
      `insert into runs (org_id, brand_id, category_id, status, methodology, is_legacy, published_at, started_at, finished_at,
         completed_prompts, total_prompts, created_at)
       values (?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    runPrompt: db.prepare('insert into run_prompts (org_id, run_id, prompt_id) values (?, ?, ?)'),
    response: db.prepare(
      `insert into responses (org_id, brand_id, category_id, run_id, prompt_id, model, model_label, surface, outcome, methodology,
         has_mention_data, sample_count, mentioned, rank, sentiment, answer_text, text_length, captured_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    mention: db.prepare(
      'insert into response_mentions (org_id, run_id, response_id, competitor_id, is_brand, name, rank) values (?, ?, ?, ?, ?, ?, ?)',
    ),
    citation: db.prepare(
      'insert into response_citations (org_id, run_id, response_id, url, domain, position) values (?, ?, ?, ?, ?, ?)',
    ),
  };

  const orgId = insertReturningId(q.org, spec.slug, spec.slug.toUpperCase(), created);
  const brandName = `${spec.slug[0]?.toUpperCase()}${spec.slug.slice(1)} Desk`;
  const brandId = insertReturningId(
    q.brand,
    orgId,
    brandName,
    `https://${spec.slug}.example`,
    created,
    created,
  );
  interface Prompt {
    id: number;
    /** Answers to one prompt keep naming much the same brands and citing much the same pages. */
    usualCompetitors: { id: number; name: string }[];
    usualUrls: string[];
  }
  const categories: {
    id: number;
    prompts: Prompt[];
    competitors: { id: number; name: string }[];
    urls: string[];
  }[] = [];
  for (let c = 0; c < spec.categories; c++) {
    const id = insertReturningId(q.category, orgId, brandId, `Category ${c + 1}`, created);
    const competitors = Array.from({ length: spec.competitorsPerCategory }, (_, k) => {
      const name = `Rival ${String.fromCharCode(65 + ((c * 7 + k) % 26))}${k}`;
      return {
        id: insertReturningId(q.competitor, orgId, brandId, id, name, name.toLowerCase(), name, created),
        name,
      };
    });
    const urls = Array.from(
      { length: 80 },
      () => `https://${random.pick(HOSTS)}${random.pick(SITES)}/page-${random.int(20)}`,
    );
    const prompts = Array.from({ length: spec.promptsPerCategory }, (_, p) => ({
      // One prompt in twelve is unmonitored: its answers must never count.
      id: insertReturningId(
        q.prompt,
        orgId,
        brandId,
        id,
        `Best tool for need ${c}.${p}?`,
        p % 12 === 11 ? 0 : 1,
        created,
      ),
      usualCompetitors: Array.from({ length: 5 }, () => random.pick(competitors)),
      usualUrls: Array.from({ length: 10 }, () => random.pick(urls)),
    }));
    categories.push({ id, prompts, competitors, urls });
  }

  const runs: GeneratedRun[] = [];
  const total = spec.days * spec.runsPerDay * spec.categories;
  const start = end - spec.days * DAY_MS;
  let responses = 0;
  for (let day = 0; day < spec.days; day++) {
    const legacy = day < spec.legacyDays;
    for (let slot = 0; slot < spec.runsPerDay; slot++) {
      for (const category of categories) {
        const finishedAt =
          start + day * DAY_MS + ((slot + 0.5) / spec.runsPerDay) * DAY_MS + random.int(3_600_000);
        if (finishedAt >= end) continue;
        const at = new Date(finishedAt).toISOString();
        // One run in a hundred stays unpublished (invisible).
        const published = legacy || random.next() < 0.99 ? at : null;
        const runId = insertReturningId(
          q.run,
          orgId,
          brandId,
          category.id,
          legacy ? 'legacy' : 'sample_v1',
          legacy ? 1 : 0,
          legacy ? null : published,
          at,
          at,
          category.prompts.length,
          category.prompts.length,
          at,
        );
        runs.push({ id: runId, finishedAt });
        for (const prompt of category.prompts) {
          const promptId = prompt.id;
          q.runPrompt.run(orgId, runId, promptId);
          for (const [model, label, surface] of ENGINES) {
            const roll = random.next();
            const outcome = roll < 0.04 ? 'error' : roll < 0.06 ? 'empty' : roll < 0.08 ? 'no_result' : 'ok';
            const ok = outcome === 'ok';
            const hasMentionData = legacy && random.next() < 0.1 ? 0 : 1;
            const mentioned = ok && random.next() < 0.55 ? 1 : 0;
            const rank = mentioned && random.next() < 0.8 ? 1 + random.int(8) : null;
            const responseId = insertReturningId(
              q.response,
              orgId,
              brandId,
              category.id,
              runId,
              promptId,
              model,
              label,
              surface,
              outcome,
              legacy ? 'legacy' : 'sample_v1',
              hasMentionData,
              1 + random.int(3),
              mentioned,
              rank,
              mentioned ? random.pick(SENTIMENTS) : null,
              ok ? ANSWER : null,
              ok ? ANSWER.length : 0,
              at,
              at,
            );
            responses++;
            if (!ok) continue;
            const named = new Set<{ id: number; name: string }>();
            for (let m = 2 + random.int(3); m > 0; m--) {
              named.add(
                random.next() < 0.9
                  ? random.pick(prompt.usualCompetitors)
                  : random.pick(category.competitors),
              );
            }
            for (const competitor of named) {
              q.mention.run(
                orgId,
                runId,
                responseId,
                competitor.id,
                0,
                competitor.name,
                random.next() < 0.8 ? 1 + random.int(8) : null,
              );
            }
            const cited = 2 + random.int(3);
            for (let position = 0; position < cited; position++) {
              const url = random.next() < 0.85 ? random.pick(prompt.usualUrls) : random.pick(category.urls);
              q.citation.run(orgId, runId, responseId, url, new URL(url).hostname, position);
            }
          }
        }
        if (runs.length % 200 === 0) progress(runs.length, total);
      }
    }
  }
  progress(runs.length, total);
  return {
    orgId,
    brandId,
    categoryIds: categories.map((c) => c.id),
    promptIds: categories.flatMap((c) => c.prompts.map((p) => p.id)),
    runs,
    responses,
  };
}
