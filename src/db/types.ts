import type { Generated } from 'kysely';

// Row types of every table. Flags are stored as 0/1 integers and timestamps as ISO-8601 UTC text
// on both databases' wire (PostgreSQL keeps timestamptz; its driver hands back ISO strings), so
// one repository serves SQLite and PostgreSQL alike.
type Flag = number;
type Timestamp = string;

export interface OrganizationsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  plan: string;
  api_access: Flag;
  timezone: string;
  free_report_used: Flag;
  created_at: Timestamp;
  /** Asks to answer engines allowed per calendar month in `timezone`; null: no limit. */
  monthly_ask_budget: number | null;
  /** 1: a completed monitoring run waits for `sightline runs publish`; 0: it publishes itself. */
  review_before_publish: Generated<Flag>;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  created_at: Timestamp;
}

export interface MembershipsTable {
  org_id: number;
  user_id: number;
  role: string;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  org_id: number;
  key_id: string;
  name: string;
  secret_hash: string;
  scopes: string;
  created_by_user_id: number | null;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface BrandsTable {
  id: Generated<number>;
  org_id: number;
  name: string;
  website: string;
  aliases: string;
  status: string;
  is_demo: Flag;
  merged_into_brand_id: number | null;
  merged_at: Timestamp | null;
  executive_summary: string;
  executive_summary_updated_at: Timestamp | null;
  monitoring_interval_hours: number;
  next_monitored_run_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The operator's own identifier, unique per organization (imports may refer to it). */
  external_key: string | null;
  /** `daily`, `weekly` or `off` (domain/schedule.ts). */
  monitoring_cadence: Generated<string>;
  /** "HH:MM" in the organization's time zone; null: any time of day. */
  monitoring_time: string | null;
  /** Weekly runs' day of the week, "mon" … "sun" (domain/schedule.ts); null: the day it was set. */
  monitoring_weekday: string | null;
  /** JSON array of engine names; empty: every configured engine. */
  monitoring_engines: Generated<string>;
  /** Asks per prompt and engine in each run. */
  monitoring_samples: Generated<number>;
}

export interface CategoriesTable {
  id: Generated<number>;
  org_id: number;
  brand_id: number;
  name: string;
  description: string;
  is_archived: Flag;
  created_at: Timestamp;
  /** The operator's own identifier, unique per organization (imports may refer to it). */
  external_key: string | null;
}

export interface PromptsTable {
  id: Generated<number>;
  org_id: number;
  brand_id: number;
  category_id: number;
  text: string;
  external_key: string | null;
  is_monitored: Flag;
  is_archived: Flag;
  created_at: Timestamp;
}

export interface CompetitorsTable {
  id: Generated<number>;
  org_id: number;
  brand_id: number;
  category_id: number;
  name: string;
  canonical_key: string;
  canonical_name: string;
  aliases: string;
  created_at: Timestamp;
}

/** An untracked name answers rank in a category: a suggested competitor. */
export interface CompetitorCandidatesTable {
  org_id: number;
  brand_id: number;
  category_id: number;
  canonical_key: string;
  name: string;
  /** Imported answers that ranked it. */
  answers: number;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
}

export interface RunsTable {
  id: Generated<number>;
  org_id: number;
  brand_id: number;
  category_id: number;
  external_id: string | null;
  status: string;
  methodology: string;
  is_legacy: Flag;
  published_at: Timestamp | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  completed_prompts: number;
  total_prompts: number;
  created_at: Timestamp;
  /** `import` or `monitor` (asked by Sightline itself). */
  source: Generated<string>;
  /** Why a run stopped short (e.g. the monthly ask budget), for the operator. */
  status_reason: string | null;
}

/** One planned ask of a monitoring run; unique per (run, prompt, engine, sample). */
export interface RunAsksTable {
  id: Generated<number>;
  org_id: number;
  run_id: number;
  prompt_id: number;
  engine: string;
  sample: number;
  /** `pending`, `asking` (claimed until lease_expires_at) or `done`. */
  state: Generated<string>;
  /** Claims so far: more than one means a worker died or lost its lease mid-ask. */
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: Timestamp | null;
  asked_at: Timestamp | null;
  finished_at: Timestamp | null;
  /** The stored response's outcome: ok, empty, no_result or error. */
  outcome: string | null;
  response_id: number | null;
  vendor_model: string | null;
  latency_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  estimated_cost_usd: number | null;
  error: string | null;
  created_at: Timestamp;
}

export interface OrgAskUsageTable {
  org_id: number;
  /** "YYYY-MM" in the organization's time zone. */
  month: string;
  asks: number;
}

export interface RunPromptsTable {
  org_id: number;
  run_id: number;
  prompt_id: number;
}

export interface ResponsesTable {
  id: Generated<number>;
  org_id: number;
  brand_id: number;
  category_id: number;
  run_id: number;
  prompt_id: number;
  external_key: string | null;
  model: string;
  model_label: string;
  surface: string;
  outcome: string;
  methodology: string;
  has_mention_data: Flag;
  sample_count: number;
  mentioned: Flag;
  rank: number | null;
  sentiment: string | null;
  answer_text: string | null;
  answer_html: string | null;
  text_length: number;
  captured_at: Timestamp;
  created_at: Timestamp;
}

export interface ResponseMentionsTable {
  id: Generated<number>;
  org_id: number;
  run_id: number;
  response_id: number;
  competitor_id: number | null;
  is_brand: Flag;
  name: string;
  rank: number | null;
}

export interface ResponseCitationsTable {
  id: Generated<number>;
  org_id: number;
  run_id: number;
  response_id: number;
  url: string;
  domain: string;
  position: number;
}

/** One row per (run, prompt) the run scored: the aggregate analytics and scores read. */
export interface RunPromptScoresTable {
  org_id: number;
  brand_id: number;
  category_id: number;
  run_id: number;
  prompt_id: number;
  methodology: string;
  scored_at: Timestamp;
  score: number;
  weight_total: number;
}

/** Each prompt's newest (recency 1) and previous (2) visible score (migration 0002). */
export interface RecentPromptScoresTable {
  org_id: number;
  brand_id: number;
  category_id: number;
  prompt_id: number;
  recency: number;
  run_id: number;
  methodology: string;
  scored_at: Timestamp;
  score: number;
}

// Analytics aggregates (migration 0001, createAnalyticsAggregates): one row per visible run
// (dated by its finish) or per aligned block of UTC days, keyed by prompt and methodology.
interface AggregateKey {
  org_id: number;
  brand_id: number;
  category_id: number;
  /** 0: the total of all the category's prompts (current methodology only). */
  prompt_id: number;
  methodology: string;
}
interface RunGrain {
  run_id: number;
  finished_at: Timestamp;
  /** The UTC day number of finished_at (days since 1970-01-01): the day block it sums into. */
  day: number;
}
interface BlockGrain {
  /** span in days × 1 000 000 + first UTC day number (days since 1970-01-01). */
  block: number;
}
export interface CoverageMeasures {
  outcome: string;
  has_mention_data: Flag;
  answers: number;
  weight: number;
}
export interface ObservationMeasures {
  model: string;
  model_label: string;
  surface: string;
  outcome: string;
  has_mention_data: Flag;
  answers: number;
  weight: number;
  mentioned_weight: number;
  ranked_weight: number;
  rank_weighted: number;
  value_weighted: number;
  positive_weight: number;
  neutral_weight: number;
  negative_weight: number;
}
export interface MentionMeasures {
  competitor_id: number;
  mentions: number;
  ranked_weight: number;
  rank_weighted: number;
  value_weighted: number;
}
export interface MentionDomainMeasures {
  /** null: the user's brand. */
  competitor_id: number | null;
  domain: string;
  citations: number;
}
export interface CitationMeasures {
  domain: string;
  url: string;
  citations: number;
}

export interface ReportArtifactsTable {
  id: Generated<number>;
  org_id: number;
  brand_id: number;
  category_id: number | null;
  report_type: string;
  status: string;
  format: string;
  created_at: Timestamp;
  completed_at: Timestamp | null;
  error_message: string;
  agent_name: string;
  agent_version: string;
  cost_usd: string;
  kg_generation_job: string;
  evidence_refs_count: number;
  is_branded: Flag;
  aborted_reason: string;
  generated_by_user_id: number | null;
}

export interface ReportFilesTable {
  org_id: number;
  artifact_id: number;
  kind: string;
  content_type: string;
  byte_length: number;
  content: Uint8Array;
}

export interface RecommendationsTable {
  id: string;
  org_id: number;
  brand_id: number;
  category_id: number | null;
  rec_type: string;
  title: string;
  status: string;
  priority: string;
  score: number;
  why: string;
  suggested_action: string;
  expected_impact: string;
  measurement_plan: string;
  impact: number;
  effort: number;
  confidence: number;
  started_at: Timestamp | null;
  implemented_at: Timestamp | null;
  dismissed_at: Timestamp | null;
  superseded_at: Timestamp | null;
  dismissed_reason: string;
  deleted_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Type and subject of the finding, e.g. `content_gap:prompt:12`; '' on rows older than it. */
  finding_key: Generated<string>;
  /** prompt, domain, platform or competitor. */
  subject_kind: Generated<string>;
  subject: Generated<string>;
  /** JSON of the numbers the rationale quotes. */
  evidence: Generated<string>;
}

export interface RecommendationArtifactsTable {
  id: string;
  org_id: number;
  recommendation_id: string;
  artifact_type: string;
  title: string;
  body: string;
  target_url: string;
  status: string;
  generated_by_model: string;
  generation_prompt_version: string;
  published_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RecommendationOutcomesTable {
  id: string;
  org_id: number;
  recommendation_id: string;
  metric_name: string;
  metric_subject: string;
  baseline_value: number;
  current_value: number;
  baseline_at: Timestamp;
  measured_at: Timestamp;
  measurement_window_days: number;
  attribution_confidence: string;
  is_measured: Flag;
  notes: string;
  baseline_sample_size: Generated<number>;
  current_sample_size: Generated<number>;
}

export interface ArtifactDraftClaimsTable {
  /** The artifact's id (`artifactId`), whether or not its row is written yet. */
  id: string;
  org_id: number;
  until: Timestamp;
}

export interface AggregateGenerationsTable {
  org_id: number;
  category_id: number;
  /** A day (`generationDayOf`), or a 4-day block id for instances from before day generations. */
  block: number;
  generation: number;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  api_keys: ApiKeysTable;
  brands: BrandsTable;
  categories: CategoriesTable;
  prompts: PromptsTable;
  competitors: CompetitorsTable;
  competitor_candidates: CompetitorCandidatesTable;
  runs: RunsTable;
  run_asks: RunAsksTable;
  org_ask_usage: OrgAskUsageTable;
  run_prompts: RunPromptsTable;
  responses: ResponsesTable;
  response_mentions: ResponseMentionsTable;
  response_citations: ResponseCitationsTable;
  run_prompt_scores: RunPromptScoresTable;
  recent_prompt_scores: RecentPromptScoresTable;
  aggregate_generations: AggregateGenerationsTable;
  agg_run_coverage: AggregateKey & RunGrain & CoverageMeasures;
  agg_block_coverage: AggregateKey & BlockGrain & CoverageMeasures;
  agg_run_observations: AggregateKey & RunGrain & ObservationMeasures;
  agg_block_observations: AggregateKey & BlockGrain & ObservationMeasures;
  agg_run_mentions: AggregateKey & RunGrain & MentionMeasures;
  agg_block_mentions: AggregateKey & BlockGrain & MentionMeasures;
  agg_run_mention_domains: AggregateKey & RunGrain & MentionDomainMeasures;
  agg_block_mention_domains: AggregateKey & BlockGrain & MentionDomainMeasures;
  agg_run_citations: AggregateKey & RunGrain & CitationMeasures;
  agg_block_citations: AggregateKey & BlockGrain & CitationMeasures;
  report_artifacts: ReportArtifactsTable;
  report_files: ReportFilesTable;
  recommendations: RecommendationsTable;
  recommendation_artifacts: RecommendationArtifactsTable;
  recommendation_outcomes: RecommendationOutcomesTable;
  artifact_draft_claims: ArtifactDraftClaimsTable;
}
