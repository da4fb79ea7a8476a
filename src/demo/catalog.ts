// Who and what the demo is about: organizations, people, answer engines and the shape of a brand.
// The brands themselves (with their categories, prompts and competitors) are in brands.ts.
import type { Plan } from '../db/organizations.ts';

export interface OrgSpec {
  slug: string;
  name: string;
  plan: Plan;
  apiAccess: boolean;
  timezone: string;
  freeReportUsed: boolean;
}

export const ORGS: readonly OrgSpec[] = [
  {
    slug: 'acme',
    name: 'Acme Growth Partners',
    plan: 'pro',
    apiAccess: true,
    timezone: 'America/New_York',
    freeReportUsed: false,
  },
  {
    slug: 'globex',
    name: 'Globex Corporation',
    plan: 'pro',
    apiAccess: true,
    timezone: 'Europe/Berlin',
    freeReportUsed: false,
  },
  {
    slug: 'initech',
    name: 'Initech',
    plan: 'pro',
    apiAccess: false,
    timezone: 'America/Chicago',
    freeReportUsed: false,
  },
  {
    slug: 'umbrella',
    name: 'Umbrella Health',
    plan: 'starter',
    apiAccess: true,
    timezone: 'UTC',
    freeReportUsed: false,
  },
  {
    slug: 'hooli',
    name: 'Hooli',
    plan: 'free',
    apiAccess: true,
    timezone: 'America/Los_Angeles',
    freeReportUsed: true,
  },
];

export interface UserSpec {
  email: string;
  name: string;
  memberships: readonly { org: string; role: 'owner' | 'admin' | 'member' }[];
}

// Bob belongs to two organizations: a key he mints in acme must still only see acme's brands.
export const USERS: readonly UserSpec[] = [
  { email: 'alice.nguyen@acme.example', name: 'Alice Nguyen', memberships: [{ org: 'acme', role: 'owner' }] },
  {
    email: 'bob.martinez@acme.example',
    name: 'Bob Martinez',
    memberships: [
      { org: 'acme', role: 'member' },
      { org: 'globex', role: 'member' },
    ],
  },
  {
    email: 'hana.fischer@globex.example',
    name: 'Hana Fischer',
    memberships: [{ org: 'globex', role: 'owner' }],
  },
  {
    email: 'peter.gibbons@initech.example',
    name: 'Peter Gibbons',
    memberships: [{ org: 'initech', role: 'owner' }],
  },
  {
    email: 'ada.okafor@umbrella.example',
    name: 'Ada Okafor',
    memberships: [{ org: 'umbrella', role: 'owner' }],
  },
  { email: 'gavin.reyes@hooli.example', name: 'Gavin Reyes', memberships: [{ org: 'hooli', role: 'admin' }] },
];

export type CitationStyle = 'links' | 'footnotes' | 'sources' | 'none';

export interface ModelSpec {
  model: string;
  label: string;
  surface: 'api' | 'ui_scrape' | 'ai_overview';
  citationStyle: CitationStyle;
  /** Share of asks on which the engine shows no answer at all (outcome no_result). */
  noResultRate: number;
  /** Identical asks merged into one row; ui scrapes are taken once. */
  maxSamples: number;
}

export const MODELS: readonly ModelSpec[] = [
  {
    model: 'chatgpt',
    label: 'ChatGPT',
    surface: 'api',
    citationStyle: 'links',
    noResultRate: 0,
    maxSamples: 3,
  },
  {
    model: 'perplexity',
    label: 'Perplexity',
    surface: 'ui_scrape',
    citationStyle: 'footnotes',
    noResultRate: 0,
    maxSamples: 1,
  },
  {
    model: 'gemini',
    label: 'Gemini',
    surface: 'api',
    citationStyle: 'links',
    noResultRate: 0,
    maxSamples: 3,
  },
  { model: 'claude', label: 'Claude', surface: 'api', citationStyle: 'none', noResultRate: 0, maxSamples: 2 },
  {
    model: 'copilot',
    label: 'Copilot',
    surface: 'ui_scrape',
    citationStyle: 'footnotes',
    noResultRate: 0.02,
    maxSamples: 1,
  },
  {
    model: 'google_ai_overview',
    label: 'Google AI Overview',
    surface: 'ai_overview',
    citationStyle: 'sources',
    noResultRate: 0.18,
    maxSamples: 1,
  },
];

export function modelSpec(model: string): ModelSpec {
  const spec = MODELS.find((m) => m.model === model);
  if (!spec) throw new Error(`unknown demo model ${model}`);
  return spec;
}

export interface CompetitorSpec {
  name: string;
  canonicalKey: string;
  canonicalName: string;
  website: string;
  aliases: readonly string[];
}

export interface PromptSpec {
  text: string;
  isMonitored: boolean;
  isArchived: boolean;
  /** The prompt was asked until this many days ago (it was later unmonitored or archived). */
  askedUntilDaysAgo: number;
}

export interface CategorySpec {
  name: string;
  description: string;
  /** How answers refer to the category ("help desk tools"). */
  topic: string;
  isArchived: boolean;
  /** Runs exist for days in [historyUntilDaysAgo, the brand's historyFromDaysAgo]. */
  historyUntilDaysAgo: number;
  prompts: readonly PromptSpec[];
  /** Most prominent first: answers rank earlier competitors higher more often. */
  competitors: readonly CompetitorSpec[];
  /** Editorial pages (reviews, forums, encyclopaedias) answers cite. */
  sources: readonly string[];
  strengths: readonly string[];
}

export interface BrandSpec {
  org: string;
  name: string;
  website: string;
  aliases: readonly string[];
  status: 'active' | 'paused' | 'archived' | 'merged';
  isDemo: boolean;
  executiveSummary: string;
  /** The brand this one was merged into (by name), for status merged. */
  mergedInto?: string;
  /** Monitoring history: from this many days ago up to historyUntilDaysAgo (1 = yesterday). */
  historyFromDaysAgo: number;
  historyUntilDaysAgo: number;
  models: readonly string[];
  /**
   * How strongly answers favour the brand, on the scale where the category's leading competitor
   * is 1 (each next competitor 0.07 less), and how much that grows over the history.
   */
  visibility: number;
  trend: number;
  categories: readonly CategorySpec[];
  /** Edge states this brand's runs show, as [category index, days ago]. */
  unpublishedRuns?: readonly (readonly [number, number])[];
  failedRuns?: readonly (readonly [number, number])[];
  /** A run in flight right now, in this category. */
  inFlightCategory?: number;
  /** A deep-sampling run that asks every prompt `repeats` times on each model. */
  bigRun?: { category: number; daysAgo: number; repeats: number };
  /**
   * A brand Sightline monitors itself: its history is not imported but produced by the monitoring
   * engine, asking the simulated engine daily at this time of day (organization time zone).
   */
  monitoredDailyAt?: string;
}

export function competitor(
  name: string,
  website: string,
  options: { key?: string; canonicalName?: string; aliases?: readonly string[] } = {},
): CompetitorSpec {
  return {
    name,
    canonicalKey:
      options.key ??
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
    canonicalName: options.canonicalName ?? name,
    website,
    aliases: options.aliases ?? [],
  };
}

export function prompt(
  text: string,
  options: { unmonitoredSince?: number; archivedSince?: number } = {},
): PromptSpec {
  return {
    text,
    isMonitored: options.unmonitoredSince === undefined,
    isArchived: options.archivedSince !== undefined,
    askedUntilDaysAgo: options.unmonitoredSince ?? options.archivedSince ?? 0,
  };
}
