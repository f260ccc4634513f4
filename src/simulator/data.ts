/**
 * Deterministic record generators for the upstream simulator: pure functions, no I/O, nothing
 * precomputed. Each value derives from a hash of (seed, account, workspace, endpoint, date), so a
 * request answers the same bytes whenever it is made, and 1,000 workspaces cost nothing until asked.
 *
 * ASSUMPTIONS (the spec says "not shown"; the real service may differ, and the normaliser must
 * tolerate other shapes):
 * - Documented by the spec: the /brands envelope {data, count} and the workspace record fields
 *   (id, name, domain, niche, keywords, created_at, latest_score{date, overall_score,
 *   share_of_voice, model_scores}). Everything else below is assumed.
 * - /me: {account{id, name}, plan{name, api_access}, limits{requests_per_minute, window_seconds,
 *   visibility_days_max, buyer_intent_days{min, max}}, usage{requests_in_window, workspaces}}.
 * - /brands/{id}: the workspace record, bare (no envelope), plus engine_mode ("all" | "selected")
 *   and competitor_count (integer).
 * - Lists other than /brands use the same {data, count} envelope, with no pagination.
 * - visibility: entries {date, overall_score, share_of_voice, model_scores, mentions,
 *   prompts_tracked}, most recent first, `days` entries ending at today. The value for a
 *   (workspace, date) never depends on `days`. Default days when omitted: 30.
 * - recommendations: {id, title, description, category, priority, status, impact_score,
 *   created_at, updated_at}. Default status filter when omitted: open. Each workspace has 5-15
 *   recommendation slots; a slot lives through cycles of 20-60 days, gets a new id each cycle and
 *   may move from open to done or dismissed on a deterministic day, so daily snapshots show
 *   status changes. Their number per status therefore varies with `today`.
 * - prompts: {id, text, intent ("money" | "informational"), engines, created_at, latest_position
 *   (1-10 or null), mentioned (latest_position !== null)}; 5-30 per workspace; the prompt set is
 *   stable, position and mention vary per day.
 * - buyer-intent: bare object {days, money_prompts{count, visibility}, informational_prompts
 *   {count, visibility}, gap (informational minus money visibility), losses[{prompt_id, prompt,
 *   engine, winner{name, domain}}], why_you_lose{generated_at, summary, reasons}}. Default days: 30.
 * - reputation: bare object {generated_at, engines[{engine, claims[{id, claim, sentiment,
 *   suspected_false}]}], conflicts[{id, topic, engines, description}], flags[{claim_id, engine,
 *   reason}]}; one flag per suspected-false claim.
 * - Scores (overall_score, model_scores, visibility) are 0-100 with one decimal; share_of_voice is
 *   a percentage 0-100 with two decimals. JSON has no decimal type, so a value such as 42.0 is
 *   serialised as 42, as a real service would.
 * - Timestamps are ISO 8601 with an explicit offset (workspaces use several offsets, other
 *   records use +00:00). created_at values are anchored to fixed dates so they do not move when
 *   `today` does.
 * - Each workspace tracks 3-5 answer engines out of ENGINES.
 */
import { type Rng, rngFor, round } from './random.js';

const ENGINES = ['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot', 'grok', 'ai_overviews'];
export const RECOMMENDATION_STATUSES = ['open', 'done', 'dismissed'] as const;
export type RecommendationStatus = (typeof RECOMMENDATION_STATUSES)[number];

export const VISIBILITY_DAYS = { min: 1, max: 365, default: 30 } as const;
export const BUYER_INTENT_DAYS = { min: 7, max: 90, default: 30 } as const;
export const DEFAULT_RECOMMENDATION_STATUS = 'open';

/** Identifies one workspace's data; `account` is part of it so two accounts never share data. */
export interface WorkspaceRef {
  seed: number;
  account: string;
  workspaceId: string;
}

export type ModelScores = Record<string, number>;

export interface LatestScore {
  date: string;
  overall_score: number;
  share_of_voice: number;
  model_scores: ModelScores;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  domain: string;
  niche: string;
  keywords: string[];
  created_at: string;
  latest_score: LatestScore;
}

export interface WorkspaceDetail extends WorkspaceRecord {
  engine_mode: 'all' | 'selected';
  competitor_count: number;
}

export interface VisibilityEntry extends LatestScore {
  mentions: number;
  prompts_tracked: number;
}

export interface Recommendation {
  id: string;
  title: string;
  description: string;
  category: string;
  priority: 'high' | 'medium' | 'low';
  status: RecommendationStatus;
  impact_score: number;
  created_at: string;
  updated_at: string;
}

export interface Prompt {
  id: string;
  text: string;
  intent: 'money' | 'informational';
  engines: string[];
  created_at: string;
  latest_position: number | null;
  mentioned: boolean;
}

export interface Competitor {
  name: string;
  domain: string;
}

export interface BuyerIntent {
  days: number;
  money_prompts: { count: number; visibility: number };
  informational_prompts: { count: number; visibility: number };
  gap: number;
  losses: { prompt_id: string; prompt: string; engine: string; winner: Competitor }[];
  why_you_lose: { generated_at: string; summary: string; reasons: string[] };
}

export interface Reputation {
  generated_at: string;
  engines: {
    engine: string;
    claims: {
      id: string;
      claim: string;
      sentiment: 'positive' | 'neutral' | 'negative';
      suspected_false: boolean;
    }[];
  }[];
  conflicts: { id: string; topic: string; engines: string[]; description: string }[];
  flags: { claim_id: string; engine: string; reason: string }[];
}

export interface ListEnvelope<T> {
  data: T[];
  count: number;
}

export interface MeRecord {
  account: { id: string; name: string };
  plan: { name: string; api_access: boolean };
  limits: {
    requests_per_minute: number;
    window_seconds: number;
    visibility_days_max: number;
    buyer_intent_days: { min: number; max: number };
  };
  usage: { requests_in_window: number; workspaces: number };
}

// ---------------------------------------------------------------------------------------------
// Dates

const DAY_MS = 86_400_000;

function epochDay(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const ANCHOR_DAY = epochDay('2025-01-01');
const UTC = '+00:00';

/** ISO timestamp for `day` + `seconds` into it, written in the local time of `offset`. */
function timestamp(day: number, seconds: number, offset = UTC): string {
  const sign = offset.startsWith('-') ? -1 : 1;
  const [h, m] = offset.slice(1).split(':').map(Number);
  const shiftMs = sign * ((h ?? 0) * 60 + (m ?? 0)) * 60_000;
  const local = new Date(day * DAY_MS + seconds * 1000 + shiftMs).toISOString().slice(0, 19);
  return `${local}${offset}`;
}

// ---------------------------------------------------------------------------------------------
// Workspace profile: the stable facts every endpoint of a workspace is consistent with.

const NICHES: { niche: string; keywords: string[] }[] = [
  {
    niche: 'Project management software',
    keywords: [
      'project management tool',
      'kanban board',
      'gantt chart app',
      'team task tracker',
      'agile planning',
      'resource planning',
    ],
  },
  {
    niche: 'Running shoes',
    keywords: [
      'trail running shoes',
      'marathon shoes',
      'running shoes for flat feet',
      'carbon plate shoes',
      'stability shoes',
    ],
  },
  {
    niche: 'CRM',
    keywords: [
      'crm for small business',
      'sales pipeline software',
      'lead management',
      'crm with email tracking',
      'b2b crm',
    ],
  },
  {
    niche: 'Accounting software',
    keywords: [
      'invoicing software',
      'bookkeeping app',
      'vat returns',
      'expense tracking',
      'accounting for freelancers',
    ],
  },
  {
    niche: 'Coffee subscription',
    keywords: [
      'specialty coffee subscription',
      'single origin beans',
      'espresso beans',
      'decaf coffee delivery',
      'coffee gifts',
    ],
  },
  {
    niche: 'Cybersecurity',
    keywords: [
      'endpoint protection',
      'password manager for teams',
      'phishing training',
      'zero trust vpn',
      'soc 2 compliance',
    ],
  },
  {
    niche: 'Email marketing',
    keywords: [
      'newsletter platform',
      'email automation',
      'transactional email',
      'email deliverability',
      'drip campaigns',
    ],
  },
  {
    niche: 'Travel insurance',
    keywords: [
      'annual travel insurance',
      'backpacker insurance',
      'trip cancellation cover',
      'ski insurance',
      'senior travel insurance',
    ],
  },
];

const SYLLABLES = [
  'no',
  'va',
  'lu',
  'mi',
  'ra',
  'zen',
  'tek',
  'qua',
  'bri',
  'sol',
  'ver',
  'io',
  'ka',
  'dex',
  'fin',
  'or',
  'tal',
  'ne',
];
const NAME_SUFFIXES = ['', '', '', ' Labs', ' HQ', ' Co', ' Group', ' Cloud'];
const TLDS = ['.com', '.com', '.io', '.co', '.ai', '.de', '.co.uk'];
const OFFSETS = ['+00:00', '+01:00', '+02:00', '-05:00', '-08:00', '+05:30', '+09:00'];

function brandName(rng: Rng): { name: string; domain: string } {
  const parts = rng.int(2, 3);
  let stem = '';
  for (let i = 0; i < parts; i++) stem += rng.pick(SYLLABLES);
  const name = stem.charAt(0).toUpperCase() + stem.slice(1) + rng.pick(NAME_SUFFIXES);
  return { name, domain: stem + rng.pick(TLDS) };
}

interface Profile {
  name: string;
  domain: string;
  niche: string;
  keywords: string[];
  engines: string[];
  engineMode: 'all' | 'selected';
  createdDay: number;
  createdAt: string;
  competitors: Competitor[];
  promptCount: number;
  recommendationSlots: number;
  baseScore: number;
  trendPeriod: number;
  trendPhase: number;
  sovFactor: number;
  engineBias: Record<string, number>;
}

function profile(ref: WorkspaceRef): Profile {
  const rng = rngFor(ref.seed, ref.account, ref.workspaceId, 'profile');
  const { name, domain } = brandName(rng);
  const niche = rng.pick(NICHES);
  const keywords = rng.sample(niche.keywords, rng.int(3, niche.keywords.length));
  const engines = rng.sample(ENGINES, rng.int(3, 5));
  const createdDay = ANCHOR_DAY - rng.int(30, 900);
  const createdAt = timestamp(createdDay, rng.int(0, 86_399), rng.pick(OFFSETS));
  const competitors: Competitor[] = [];
  const competitorCount = rng.int(2, 10);
  for (let i = 0; i < competitorCount; i++) competitors.push(brandName(rng));
  const engineBias: Record<string, number> = {};
  for (const engine of engines) engineBias[engine] = rng.float(-15, 15);
  return {
    name,
    domain,
    niche: niche.niche,
    keywords,
    engines,
    engineMode: engines.length === 5 ? 'all' : rng.pick(['all', 'selected'] as const),
    createdDay,
    createdAt,
    competitors,
    promptCount: rng.int(5, 30),
    recommendationSlots: rng.int(5, 15),
    baseScore: rng.float(15, 80),
    trendPeriod: rng.int(20, 120),
    trendPhase: rng.int(0, 119),
    sovFactor: rng.float(0.2, 0.8, 2),
    engineBias,
  };
}

function clampScore(value: number, decimals = 1): number {
  return round(Math.min(100, Math.max(0, value)), decimals);
}

// ---------------------------------------------------------------------------------------------
// Generated workspace ids and keys

export function generatedWorkspaceId(seed: number, account: string, index: number): string {
  return `ws_${rngFor(seed, 'workspace-id', account, index).hex(12)}`;
}

export function generatedApiKey(seed: number, account: string, index: number): string {
  return `vsk_live_${account.replaceAll('-', '')}_${rngFor(seed, 'api-key', account, index).hex(16)}`;
}

function accountId(seed: number, account: string): string {
  return `acc_${rngFor(seed, 'account-id', account).hex(12)}`;
}

// ---------------------------------------------------------------------------------------------
// Endpoints

export function me(input: {
  seed: number;
  account: string;
  plan: string;
  apiAccess: boolean;
  limit: { requests: number; windowMs: number };
  requestsInWindow: number;
  workspaces: number;
}): MeRecord {
  return {
    account: { id: accountId(input.seed, input.account), name: input.account },
    plan: { name: input.plan, api_access: input.apiAccess },
    limits: {
      requests_per_minute: input.limit.requests,
      window_seconds: input.limit.windowMs / 1000,
      visibility_days_max: VISIBILITY_DAYS.max,
      buyer_intent_days: { min: BUYER_INTENT_DAYS.min, max: BUYER_INTENT_DAYS.max },
    },
    usage: { requests_in_window: input.requestsInWindow, workspaces: input.workspaces },
  };
}

function visibilityEntry(ref: WorkspaceRef, p: Profile, date: string): VisibilityEntry {
  // Seeded by the date, never by the position in the window, so any `days` agrees on a day.
  const rng = rngFor(ref.seed, ref.account, ref.workspaceId, 'visibility', date);
  const day = epochDay(date);
  const trend = 8 * Math.sin(((day + p.trendPhase) / p.trendPeriod) * 2 * Math.PI);
  const overall = clampScore(p.baseScore + trend + rng.float(-4, 4, 3));
  const model_scores: ModelScores = {};
  for (const engine of p.engines) {
    model_scores[engine] = clampScore(overall + (p.engineBias[engine] ?? 0) + rng.float(-6, 6, 3));
  }
  return {
    date,
    overall_score: overall,
    share_of_voice: clampScore(overall * p.sovFactor + rng.float(-3, 3, 3), 2),
    model_scores,
    mentions: rng.int(0, p.promptCount * p.engines.length),
    prompts_tracked: p.promptCount,
  };
}

function latestScore(ref: WorkspaceRef, p: Profile, today: string): LatestScore {
  const { date, overall_score, share_of_voice, model_scores } = visibilityEntry(ref, p, today);
  return { date, overall_score, share_of_voice, model_scores };
}

export function workspace(ref: WorkspaceRef, today: string): WorkspaceRecord {
  const p = profile(ref);
  return {
    id: ref.workspaceId,
    name: p.name,
    domain: p.domain,
    niche: p.niche,
    keywords: p.keywords,
    created_at: p.createdAt,
    latest_score: latestScore(ref, p, today),
  };
}

export function workspaceDetail(ref: WorkspaceRef, today: string): WorkspaceDetail {
  const p = profile(ref);
  return { ...workspace(ref, today), engine_mode: p.engineMode, competitor_count: p.competitors.length };
}

export function brandsList(seed: number, account: string, ids: readonly string[], today: string) {
  const data = ids.map((workspaceId) => workspace({ seed, account, workspaceId }, today));
  return { data, count: data.length } satisfies ListEnvelope<WorkspaceRecord>;
}

export function visibility(ref: WorkspaceRef, today: string, days: number): ListEnvelope<VisibilityEntry> {
  const p = profile(ref);
  const end = epochDay(today);
  const data: VisibilityEntry[] = [];
  for (let i = 0; i < days; i++) data.push(visibilityEntry(ref, p, dateOfDay(end - i)));
  return { data, count: data.length };
}

const RECOMMENDATION_TEMPLATES: { category: string; title: string; description: string }[] = [
  {
    category: 'content',
    title: 'Publish a comparison page for "{kw}"',
    description:
      'Answer engines cite comparison pages for "{kw}"; {name} has none, competitors have several.',
  },
  {
    category: 'content',
    title: 'Add an FAQ section about {kw}',
    description: 'Short question-and-answer blocks about {kw} are quoted verbatim by answer engines.',
  },
  {
    category: 'technical',
    title: 'Add structured data to product pages',
    description: 'Product and Organization schema help engines attribute facts to {name}.',
  },
  {
    category: 'technical',
    title: 'Unblock AI crawlers in robots.txt',
    description: 'Some answer-engine crawlers are disallowed on {domain}, so fresh pages are not read.',
  },
  {
    category: 'citations',
    title: 'Get listed on review sites for {kw}',
    description: 'The sources cited for "{kw}" are review directories where {name} is missing.',
  },
  {
    category: 'citations',
    title: 'Update the Wikipedia and Wikidata entries',
    description: 'Engines repeat outdated facts about {name} that come from encyclopedic sources.',
  },
  {
    category: 'reviews',
    title: 'Respond to recent negative reviews',
    description: 'Negative reviews are summarised in answers about {name}; replies change the summary.',
  },
  {
    category: 'pr',
    title: 'Pitch an expert quote on {kw}',
    description: 'Trade press articles on {kw} are frequent citations; {name} is never quoted in them.',
  },
];

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** Every recommendation current on `today`, whatever its status. */
export function allRecommendations(ref: WorkspaceRef, today: string): Recommendation[] {
  const p = profile(ref);
  const todayDay = epochDay(today);
  const out: Recommendation[] = [];
  for (let slot = 0; slot < p.recommendationSlots; slot++) {
    const slotRng = rngFor(ref.seed, ref.account, ref.workspaceId, 'recommendation-slot', slot);
    const period = slotRng.int(20, 60);
    const phase = slotRng.int(0, period - 1);
    const cycle = Math.floor((todayDay + phase) / period);
    const startDay = cycle * period - phase;
    const rng = rngFor(ref.seed, ref.account, ref.workspaceId, 'recommendation', slot, cycle);
    const template = rng.pick(RECOMMENDATION_TEMPLATES);
    const values = { kw: rng.pick(p.keywords), name: p.name, domain: p.domain };
    const resolveAfter = rng.int(2, period - 1);
    const staysOpen = rng.chance(0.25);
    const outcome: RecommendationStatus = rng.chance(0.75) ? 'done' : 'dismissed';
    const createdAt = timestamp(startDay, rng.int(0, 21_599));
    const resolvedAt = timestamp(startDay + resolveAfter, rng.int(0, 21_599));
    const resolved = !staysOpen && todayDay >= startDay + resolveAfter;
    out.push({
      id: `rec_${rng.hex(12)}`,
      title: fill(template.title, values),
      description: fill(template.description, values),
      category: template.category,
      priority: rng.pick(['high', 'medium', 'medium', 'low'] as const),
      status: resolved ? outcome : 'open',
      impact_score: rng.float(1, 10),
      created_at: createdAt,
      updated_at: resolved ? resolvedAt : createdAt,
    });
  }
  return out;
}

export function recommendations(
  ref: WorkspaceRef,
  today: string,
  status: RecommendationStatus | 'all',
): ListEnvelope<Recommendation> {
  const all = allRecommendations(ref, today);
  const data = status === 'all' ? all : all.filter((r) => r.status === status);
  return { data, count: data.length };
}

const MONEY_TEMPLATES = [
  'What is the best {kw}?',
  'Which {kw} should I buy?',
  'Top 5 {kw} for small teams',
  '{kw} pricing compared',
  'Cheapest {kw} that is still good',
];
const INFO_TEMPLATES = ['How does {kw} work?', 'What is {kw}?', 'Is {kw} worth it?', 'How to choose {kw}'];

function promptList(ref: WorkspaceRef, p: Profile, today: string): Prompt[] {
  const out: Prompt[] = [];
  for (let i = 0; i < p.promptCount; i++) {
    const rng = rngFor(ref.seed, ref.account, ref.workspaceId, 'prompt', i);
    // The first two prompts fix one of each intent so the buyer-intent lens always has both.
    const intent =
      i === 0 ? 'money' : i === 1 ? 'informational' : rng.chance(0.45) ? 'money' : 'informational';
    const text = fill(rng.pick(intent === 'money' ? MONEY_TEMPLATES : INFO_TEMPLATES), {
      kw: rng.pick(p.keywords),
    });
    const engines = rng.sample(p.engines, rng.int(1, p.engines.length));
    const createdAt = timestamp(p.createdDay + rng.int(0, 60), rng.int(0, 86_399));
    const id = `prm_${rng.hex(10)}`;
    const daily = rngFor(ref.seed, ref.account, ref.workspaceId, 'prompt-rank', i, today);
    const mentioned = daily.chance(p.baseScore / 100);
    out.push({
      id,
      text: text.charAt(0).toUpperCase() + text.slice(1),
      intent,
      engines,
      created_at: createdAt,
      latest_position: mentioned ? daily.int(1, 10) : null,
      mentioned,
    });
  }
  return out;
}

export function prompts(ref: WorkspaceRef, today: string): ListEnvelope<Prompt> {
  const data = promptList(ref, profile(ref), today);
  return { data, count: data.length };
}

const LOSE_REASONS = [
  'Competitors are cited by comparison articles that do not mention you.',
  'Your pricing page is not readable without JavaScript.',
  'Review sites rank competitors higher on ease of use.',
  'Engines lack recent third-party coverage of your product.',
  'Your product pages do not state who the product is for.',
  'Competitors publish detailed integration documentation.',
];

export function buyerIntent(ref: WorkspaceRef, today: string, days: number): BuyerIntent {
  const p = profile(ref);
  const list = promptList(ref, p, today);
  const money = list.filter((x) => x.intent === 'money');
  const info = list.filter((x) => x.intent === 'informational');
  const rng = rngFor(ref.seed, ref.account, ref.workspaceId, 'buyer-intent', today, days);
  const moneyVisibility = clampScore(p.baseScore - rng.float(5, 25, 3));
  const infoVisibility = clampScore(p.baseScore + rng.float(-5, 15, 3));
  const losses = money
    .filter((x) => !x.mentioned)
    .slice(0, 10)
    .map((x) => ({
      prompt_id: x.id,
      prompt: x.text,
      engine: rng.pick(x.engines),
      winner: rng.pick(p.competitors),
    }));
  const top = losses[0]?.winner.name ?? p.competitors[0]?.name ?? 'competitors';
  return {
    days,
    money_prompts: { count: money.length, visibility: moneyVisibility },
    informational_prompts: { count: info.length, visibility: infoVisibility },
    gap: round(infoVisibility - moneyVisibility, 1),
    losses,
    why_you_lose: {
      generated_at: timestamp(epochDay(today), rng.int(3600, 21_600)),
      summary: `${p.name} is not recommended on ${losses.length} of ${money.length} buying-intent prompts over the last ${days} days, most often losing to ${top}.`,
      reasons: rng.sample(LOSE_REASONS, rng.int(2, 4)),
    },
  };
}

const CLAIM_TEMPLATES = [
  '{name} was founded in {year}.',
  '{name} offers a free plan.',
  '{name} is headquartered in {city}.',
  '{name} integrates with {tool}.',
  '{name} costs {price} per month.',
  '{name} has more than {customers} customers.',
];
const CITIES = ['Berlin', 'London', 'Austin', 'Toronto', 'Amsterdam', 'Singapore'];
const TOOLS = ['Slack', 'Salesforce', 'Shopify', 'HubSpot', 'Zapier', 'Google Sheets'];
const CONFLICT_TOPICS = ['pricing', 'founding year', 'headquarters', 'free plan', 'integrations'];

export function reputation(ref: WorkspaceRef, today: string): Reputation {
  const p = profile(ref);
  const rng = rngFor(ref.seed, ref.account, ref.workspaceId, 'reputation', today);
  const engines = p.engines.map((engine) => {
    // Claim ids and wording are stable per engine; sentiment and suspicion change per day.
    const stable = rngFor(ref.seed, ref.account, ref.workspaceId, 'claims', engine);
    const count = stable.int(2, 5);
    const claims = [];
    for (let j = 0; j < count; j++) {
      const claim = fill(stable.pick(CLAIM_TEMPLATES), {
        name: p.name,
        year: String(stable.int(1995, 2022)),
        city: stable.pick(CITIES),
        tool: stable.pick(TOOLS),
        price: `$${stable.int(5, 99)}`,
        customers: String(stable.int(1, 50) * 1000),
      });
      claims.push({
        id: `clm_${stable.hex(10)}`,
        claim,
        sentiment: rng.pick(['positive', 'positive', 'neutral', 'negative'] as const),
        suspected_false: rng.chance(0.15),
      });
    }
    return { engine, claims };
  });
  const conflicts = [];
  const conflictCount = rng.int(0, 3);
  for (let i = 0; i < conflictCount; i++) {
    const topic = rng.pick(CONFLICT_TOPICS);
    const pair = rng.sample(p.engines, 2);
    conflicts.push({
      id: `cnf_${rng.hex(10)}`,
      topic,
      engines: pair,
      description: `${pair.join(' and ')} give different answers about the ${topic} of ${p.name}.`,
    });
  }
  const flags = engines.flatMap(({ engine, claims }) =>
    claims
      .filter((c) => c.suspected_false)
      .map((c) => ({ claim_id: c.id, engine, reason: 'Contradicts the facts published on ' + p.domain })),
  );
  return { generated_at: timestamp(epochDay(today), rng.int(3600, 21_600)), engines, conflicts, flags };
}
