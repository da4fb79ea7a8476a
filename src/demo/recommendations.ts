// The demo's recommendations: every status (open, in progress, implemented, dismissed,
// superseded) plus a soft-deleted one, with generated artifacts and measured outcomes. Open ones
// share priorities and, in one pair, a score, so the list order's tie-breaks show.

export interface RecArtifactSpec {
  artifactType: string;
  title: string;
  body: string;
  targetUrl: string;
  status: 'draft' | 'ready' | 'published';
  model: string;
}

export interface RecOutcomeSpec {
  metricName: string;
  metricSubject: string;
  baselineValue: number;
  currentValue: number;
  windowDays: number;
  confidence: 'low' | 'medium' | 'high';
  isMeasured: boolean;
  notes: string;
}

export interface RecSpec {
  brand: string;
  category: number | null;
  recType: string;
  title: string;
  status: 'open' | 'in_progress' | 'implemented' | 'dismissed' | 'superseded';
  priority: 'high' | 'medium' | 'low';
  score: number;
  why: string;
  suggestedAction: string;
  expectedImpact: string;
  measurementPlan: string;
  impact: number;
  effort: number;
  confidence: number;
  createdDaysAgo: number;
  /** Days ago the status changed (started, implemented, dismissed or superseded). */
  changedDaysAgo?: number;
  dismissedReason?: string;
  deletedDaysAgo?: number;
  artifacts?: readonly RecArtifactSpec[];
  outcomes?: readonly RecOutcomeSpec[];
}

const GPT = 'gpt-4o-2024-08-06';
const CLAUDE = 'claude-3-5-sonnet-20241022';

function rec(
  brand: string,
  title: string,
  status: RecSpec['status'],
  priority: RecSpec['priority'],
  score: number,
  details: Omit<Partial<RecSpec>, 'brand' | 'title' | 'status' | 'priority' | 'score'> & {
    recType: string;
    why: string;
    suggestedAction: string;
  },
): RecSpec {
  return {
    brand,
    category: null,
    title,
    status,
    priority,
    score,
    expectedImpact: 'Higher mention rate on the prompts this targets within 4–6 weeks.',
    measurementPlan:
      'Compare mention rate and average rank on the targeted prompts over 28 days before and after.',
    impact: Math.round(score / 10),
    effort: 3,
    confidence: 0.7,
    createdDaysAgo: 40,
    ...details,
  };
}

export const RECOMMENDATIONS: readonly RecSpec[] = [
  rec('Brightdesk', 'Publish a Brightdesk vs Zendesk comparison page', 'open', 'high', 86.4, {
    category: 0,
    recType: 'content_gap',
    why: 'ChatGPT and Perplexity answer "Zendesk alternatives" prompts from comparison pages. Brightdesk has none, and it is missing from most of those answers.',
    suggestedAction:
      'Publish an honest comparison page covering pricing, setup time and migration, with a feature table engines can quote.',
    expectedImpact: '+8 to +12 points of mention rate on the two alternatives prompts.',
    impact: 8.5,
    effort: 3,
    confidence: 0.8,
    createdDaysAgo: 6,
    artifacts: [
      {
        artifactType: 'comparison_page',
        title: 'Brightdesk vs Zendesk: an honest comparison for small support teams',
        body: "# Brightdesk vs Zendesk\n\nZendesk is the default choice for large support organisations. Brightdesk is built for teams of 5 to 50 agents who want to be live in a day.\n\n| | Brightdesk | Zendesk |\n|---|---|---|\n| Setup | Under a day | 2 to 6 weeks |\n| Starting price | $19 per agent | $55 per agent |\n| Shared inbox | Included | Add-on |\n\n## When Zendesk is the better fit\n\nIf you run a 300-seat contact centre with complex routing, Zendesk's workforce tools are hard to beat.",
        targetUrl: 'https://www.brightdesk.io/compare/zendesk',
        status: 'ready',
        model: GPT,
      },
    ],
  }),
  rec('Brightdesk', "Get reviewed on G2's help desk grid", 'open', 'high', 78, {
    category: 0,
    recType: 'citation_opportunity',
    why: 'g2.com is the most cited domain in help desk answers, and Brightdesk has only 11 reviews there, below the grid threshold.',
    suggestedAction: 'Invite recently onboarded customers to review Brightdesk on G2; aim for 40 reviews.',
    createdDaysAgo: 9,
    artifacts: [
      {
        artifactType: 'review_request_email',
        title: 'Review request email for new customers',
        body: 'Subject: Two minutes to help other support teams?\n\nHi {first_name},\n\nYou have been on Brightdesk for a month now. Would you share what worked (and what did not) on G2? It helps other teams choose, and we read every review.\n\nThanks,\nThe Brightdesk team',
        targetUrl: 'https://www.g2.com/products/brightdesk/reviews',
        status: 'draft',
        model: CLAUDE,
      },
    ],
  }),
  rec('Brightdesk', 'Add FAQ structured data to the pricing page', 'open', 'medium', 64.5, {
    recType: 'technical',
    why: 'Google AI Overview answers about help desk pricing quote FAQ blocks; the Brightdesk pricing page has no FAQ markup.',
    suggestedAction: 'Add FAQPage structured data answering the six most asked pricing questions.',
    createdDaysAgo: 12,
  }),
  rec('Brightdesk', 'Answer the top Reddit threads about AI support bots', 'open', 'medium', 64.5, {
    category: 1,
    recType: 'community',
    why: 'Perplexity cites r/SaaS threads for AI chatbot prompts, and Brightdesk is never mentioned in them.',
    suggestedAction:
      'Have a product manager answer the three most cited threads, disclosing the affiliation.',
    createdDaysAgo: 5,
  }),
  rec('Brightdesk', 'Refresh the Atlassian Marketplace listing', 'open', 'low', 41, {
    category: 2,
    recType: 'listing',
    why: 'ITSM answers cite Atlassian pages; the Brightdesk for Jira listing still shows 2023 screenshots.',
    suggestedAction: 'Update screenshots, the description and the supported versions.',
    createdDaysAgo: 15,
  }),
  rec(
    'Brightdesk',
    'Rewrite the AI chatbot feature page around ticket deflection',
    'in_progress',
    'high',
    72.3,
    {
      category: 1,
      recType: 'content_refresh',
      why: 'Answers about AI support bots rank tools by deflection rate; the Brightdesk page never states one.',
      suggestedAction:
        'Lead with the measured deflection rate and a customer quote; add a short methodology note.',
      createdDaysAgo: 20,
      changedDaysAgo: 9,
      artifacts: [
        {
          artifactType: 'landing_page_copy',
          title: 'AI Assist: resolve 38% of tickets before an agent opens them',
          body: '## Resolve the easy tickets automatically\n\nBrightdesk AI Assist answered 38% of incoming tickets for customers in our 2024 cohort, using only their existing help centre.\n\n- Hands off to an agent with the full conversation\n- Never invents refunds or prices: answers come from your articles',
          targetUrl: 'https://www.brightdesk.io/ai-assist',
          status: 'draft',
          model: GPT,
        },
      ],
      outcomes: [
        {
          metricName: 'mention_rate',
          metricSubject: 'AI customer service chatbots',
          baselineValue: 0.28,
          currentValue: 0.3,
          windowDays: 28,
          confidence: 'low',
          isMeasured: false,
          notes: 'Measurement starts when the page ships.',
        },
      ],
    },
  ),
  rec('Brightdesk', 'Publish customer stories with measurable results', 'implemented', 'medium', 69, {
    recType: 'content_gap',
    why: 'Answers recommending help desks cite case studies with numbers; Brightdesk had none.',
    suggestedAction: 'Publish three customer stories with before/after response times.',
    createdDaysAgo: 70,
    changedDaysAgo: 35,
    artifacts: [
      {
        artifactType: 'case_study',
        title: 'How Parcelwise cut first response time from 9 hours to 40 minutes',
        body: 'Parcelwise, a 14-agent e-commerce support team, moved from shared Gmail to Brightdesk in March. Within six weeks their median first response time fell from 9 hours to 40 minutes.',
        targetUrl: 'https://www.brightdesk.io/customers/parcelwise',
        status: 'published',
        model: CLAUDE,
      },
      {
        artifactType: 'faq_block',
        title: 'Customer results FAQ',
        body: 'Q: How fast do teams see results with Brightdesk?\nA: Most teams cut first response time in half within a month.',
        targetUrl: 'https://www.brightdesk.io/customers',
        status: 'published',
        model: GPT,
      },
    ],
    outcomes: [
      {
        metricName: 'mention_rate',
        metricSubject: '',
        baselineValue: 0.31,
        currentValue: 0.44,
        windowDays: 28,
        confidence: 'medium',
        isMeasured: true,
        notes: 'Gain concentrated in Perplexity and ChatGPT answers, which now cite the Parcelwise story.',
      },
      {
        metricName: 'average_rank',
        metricSubject: 'ChatGPT',
        baselineValue: 3.4,
        currentValue: 2.6,
        windowDays: 28,
        confidence: 'medium',
        isMeasured: true,
        notes: '',
      },
    ],
  }),
  rec('Brightdesk', 'Sponsor a help desk round-up on TechRadar', 'dismissed', 'low', 35.5, {
    recType: 'citation_opportunity',
    why: 'techradar.com is cited in 9% of help desk answers.',
    suggestedAction: 'Buy a sponsored placement in the next round-up.',
    createdDaysAgo: 30,
    changedDaysAgo: 20,
    dismissedReason: 'Paid placements are out of budget this quarter.',
  }),
  rec('Brightdesk', "Write a help desk buyer's guide", 'superseded', 'medium', 55, {
    category: 0,
    recType: 'content_gap',
    why: 'Generic buyer guides rank for "best help desk" prompts.',
    suggestedAction: "Publish a long-form buyer's guide.",
    createdDaysAgo: 32,
    changedDaysAgo: 6,
  }),
  rec('Brightdesk', 'Translate the pricing page into German', 'open', 'medium', 50, {
    recType: 'localisation',
    why: 'Created by mistake for an English-only prompt set.',
    suggestedAction: 'Translate the pricing page.',
    createdDaysAgo: 18,
    deletedDaysAgo: 12,
  }),
  rec('Copperline Coffee', 'Get Copperline into Wirecutter-style gift guides', 'open', 'high', 74, {
    category: 0,
    recType: 'citation_opportunity',
    why: 'Gift prompts cite nytimes.com and seriouseats.com round-ups; Copperline is in neither.',
    suggestedAction: 'Pitch a sample box to the editors of both guides before the holiday round-ups.',
    createdDaysAgo: 8,
  }),
  rec('Copperline Coffee', 'Publish roast dates on every product page', 'implemented', 'medium', 61, {
    category: 0,
    recType: 'content_refresh',
    why: 'Freshness prompts reward roasters that state roast-to-ship times.',
    suggestedAction: 'Show the roast date and the ship-within promise on every bean page.',
    createdDaysAgo: 60,
    changedDaysAgo: 30,
    outcomes: [
      {
        metricName: 'mention_rate',
        metricSubject: 'Which coffee subscription has the freshest beans?',
        baselineValue: 0.18,
        currentValue: 0.29,
        windowDays: 28,
        confidence: 'high',
        isMeasured: true,
        notes: '',
      },
    ],
  }),
  rec('Tallyfield CRM', 'Publish a Gmail add-on landing page', 'open', 'high', 80, {
    category: 0,
    recType: 'content_gap',
    why: 'Answers to "CRM inside Gmail" list tools with a dedicated add-on page.',
    suggestedAction: 'Publish a landing page for the Gmail add-on with install steps.',
    createdDaysAgo: 4,
  }),
  rec('Tallyfield CRM', 'Update the G2 profile categories', 'in_progress', 'low', 38, {
    recType: 'listing',
    why: 'Tallyfield is listed under "Contact management" only.',
    suggestedAction: 'Add the CRM and Sales pipeline categories on G2.',
    createdDaysAgo: 10,
    changedDaysAgo: 3,
  }),
  rec('Pillpoint Pharmacy', 'Explain prescription transfer in plain steps', 'open', 'medium', 58, {
    recType: 'content_gap',
    why: 'Answers about switching pharmacies quote step-by-step transfer guides.',
    suggestedAction: 'Publish a four-step transfer guide with an FAQ.',
    createdDaysAgo: 7,
  }),
  rec('Nestwell', 'Publish C-wire compatibility guidance', 'open', 'high', 70, {
    recType: 'content_gap',
    why: 'The C-wire prompt is answered from installation guides; Nestwell has none.',
    suggestedAction: 'Publish a compatibility checker and an installation guide.',
    createdDaysAgo: 7,
  }),
  rec('Ledgerline', 'Claim the Ledgerline Capterra profile', 'open', 'medium', 52, {
    recType: 'listing',
    why: 'Capterra is cited for accounting prompts and the Ledgerline profile is unclaimed.',
    suggestedAction: 'Claim the profile and add screenshots and pricing.',
    createdDaysAgo: 11,
  }),
];
