// The demo brands, in insertion order: the order fixes their ids, and the ninth (acme's Brightdesk)
// must get id 9, the public demo brand. Competitors and cited pages are real companies and sites
// so the answers read like real ones; the monitored brands themselves are fictional.
import { type BrandSpec, type CategorySpec, competitor as c, prompt as p } from './catalog.ts';

const ALL_MODELS = ['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot', 'google_ai_overview'];
const SEARCH_MODELS = ['chatgpt', 'perplexity', 'google_ai_overview'];
const THREE_MODELS = ['chatgpt', 'perplexity', 'gemini'];

const SOFTWARE_STRENGTHS = [
  'a clean interface that new agents pick up in a day',
  'strong automation rules and SLA tracking',
  'a generous free tier for small teams',
  'deep reporting and custom dashboards',
  'a large marketplace of integrations',
  'solid enterprise security and compliance options',
  'fast, well-reviewed customer support',
  'predictable per-seat pricing',
];

const HELP_DESK: CategorySpec = {
  name: 'Help desk software',
  description: 'Ticketing and shared-inbox tools for customer support teams.',
  topic: 'help desk tools',
  isArchived: false,
  historyUntilDaysAgo: 1,
  prompts: [
    p('What is the best help desk software for a 20-person SaaS startup?'),
    p('Cheaper Zendesk alternatives for small support teams'),
    p('Which help desk tools have the best shared inbox and collision detection?'),
    p('Best ticketing system for e-commerce customer support'),
    p('Help desk software with a built-in knowledge base and SLA tracking', { unmonitoredSince: 45 }),
    p('Freshdesk vs Zendesk vs Brightdesk for B2B support', { archivedSince: 30 }),
  ],
  competitors: [
    c('Zendesk', 'https://www.zendesk.com'),
    c('Freshdesk', 'https://www.freshworks.com/freshdesk', { aliases: ['Freshworks Freshdesk'] }),
    c('Help Scout', 'https://www.helpscout.com', { aliases: ['HelpScout'] }),
    c('Zoho Desk', 'https://www.zoho.com/desk'),
    c('HubSpot Service Hub', 'https://www.hubspot.com/products/service', {
      key: 'hubspot',
      canonicalName: 'HubSpot',
    }),
    c('Gorgias', 'https://www.gorgias.com'),
    c('Front', 'https://front.com'),
    c('Intercom', 'https://www.intercom.com'),
    c('Kustomer', 'https://www.kustomer.com'),
    c('Jira Service Management', 'https://www.atlassian.com/software/jira/service-management', {
      aliases: ['JSM'],
    }),
    c('Gladly', 'https://www.gladly.com'),
    c('Hiver', 'https://hiverhq.com'),
  ],
  sources: [
    'https://www.g2.com/categories/help-desk',
    'https://www.capterra.com/help-desk-software/',
    'https://www.techradar.com/best/best-help-desk-software',
    'https://www.reddit.com/r/CustomerSuccess/comments/18k2f7q/which_helpdesk_do_you_use/',
    'https://www.forbes.com/advisor/business/software/best-help-desk-software/',
    'https://en.wikipedia.org/wiki/Help_desk_software',
  ],
  strengths: SOFTWARE_STRENGTHS,
};

const AI_CHATBOTS: CategorySpec = {
  name: 'AI customer service chatbots',
  description: 'AI agents that answer customers and hand off to humans.',
  topic: 'AI support chatbots',
  isArchived: false,
  historyUntilDaysAgo: 1,
  prompts: [
    p('Which AI chatbot is best for deflecting support tickets?'),
    p('Best AI agents for customer service that integrate with a help desk'),
    p('Is Intercom Fin worth it compared to other AI support bots?'),
    p('AI customer support tools with a smooth human handoff'),
    p('How accurate are AI chatbots at answering billing questions?', { unmonitoredSince: 20 }),
  ],
  competitors: [
    c('Intercom Fin', 'https://www.intercom.com/fin', { key: 'intercom', canonicalName: 'Intercom' }),
    c('Ada', 'https://www.ada.cx'),
    c('Zendesk AI', 'https://www.zendesk.com/service/ai', { key: 'zendesk', canonicalName: 'Zendesk' }),
    c('Tidio', 'https://www.tidio.com'),
    c('Forethought', 'https://forethought.ai'),
    c('Freddy AI', 'https://www.freshworks.com/freddy-ai', { key: 'freshdesk', canonicalName: 'Freshdesk' }),
    c('Drift', 'https://www.salesloft.com/platform/drift'),
    c('LivePerson', 'https://www.liveperson.com'),
    c('Sierra', 'https://sierra.ai'),
  ],
  sources: [
    'https://www.g2.com/categories/chatbots',
    'https://www.gartner.com/reviews/market/conversational-ai-platforms',
    'https://www.zapier.com/blog/best-ai-chatbot/',
    'https://www.reddit.com/r/SaaS/comments/1b9x0k2/ai_support_bots_worth_it/',
    'https://www.which.co.uk/news/article/ai-customer-service-chatbots-aXyZ12',
  ],
  strengths: [
    'high resolution rates on common questions',
    'a quick setup from an existing knowledge base',
    'careful guardrails against made-up answers',
    'multilingual answers out of the box',
    'clean handoff to a human agent with full context',
    'usage-based pricing per resolution',
  ],
};

const ITSM: CategorySpec = {
  name: 'IT service management',
  description: 'Internal IT service desks, ITIL processes and asset management.',
  topic: 'ITSM platforms',
  isArchived: false,
  historyUntilDaysAgo: 1,
  prompts: [
    p('Best ITSM tool for a mid-sized company replacing ServiceNow'),
    p('ITIL-aligned service desk software with asset management'),
    p('Which IT help desk is easiest to roll out in under a month?'),
    p('Affordable ITSM platforms for 500 employees'),
  ],
  competitors: [
    c('ServiceNow', 'https://www.servicenow.com'),
    c('Jira Service Management', 'https://www.atlassian.com/software/jira/service-management'),
    c('Freshservice', 'https://www.freshworks.com/freshservice'),
    c('ManageEngine ServiceDesk Plus', 'https://www.manageengine.com/products/service-desk', {
      key: 'manageengine',
      canonicalName: 'ManageEngine',
    }),
    c('SysAid', 'https://www.sysaid.com'),
    c('Ivanti Neurons for ITSM', 'https://www.ivanti.com', { key: 'ivanti', canonicalName: 'Ivanti' }),
    c('TOPdesk', 'https://www.topdesk.com'),
    c('SolarWinds Service Desk', 'https://www.solarwinds.com/service-desk', {
      key: 'solarwinds',
      canonicalName: 'SolarWinds',
    }),
  ],
  sources: [
    'https://www.gartner.com/reviews/market/it-service-management-platforms',
    'https://www.g2.com/categories/it-service-management-tools',
    'https://www.pcmag.com/picks/the-best-it-help-desk-software',
    'https://www.techtarget.com/searchitoperations/definition/IT-service-management-ITSM',
  ],
  strengths: [
    'mature ITIL workflows for incidents, problems and changes',
    'a built-in CMDB and asset discovery',
    'a short rollout with sensible defaults',
    'an employee portal people actually use',
    'flexible automation without scripting',
  ],
};

const LIVE_CHAT: CategorySpec = {
  name: 'Live chat widgets',
  description: 'Website chat widgets (tracked until Brightdesk Chat was merged in).',
  topic: 'live chat widgets',
  isArchived: true,
  historyUntilDaysAgo: 61,
  prompts: [
    p('Best live chat widget for a small online store'),
    p('Free live chat software for websites'),
    p('Live chat tools with a chatbot and mobile apps'),
  ],
  competitors: [
    c('LiveChat', 'https://www.livechat.com'),
    c('Tidio', 'https://www.tidio.com'),
    c('Olark', 'https://www.olark.com'),
    c('Crisp', 'https://crisp.chat'),
    c('tawk.to', 'https://www.tawk.to', { key: 'tawk-to' }),
  ],
  sources: ['https://www.g2.com/categories/live-chat', 'https://www.shopify.com/blog/live-chat-apps'],
  strengths: [
    'a free plan with unlimited agents',
    'a lightweight widget',
    'good mobile apps',
    'e-commerce integrations',
  ],
};

const COFFEE_STRENGTHS = [
  'beans roasted to order and shipped within days',
  'a quiz that matches beans to your taste',
  'a wide range of single-origin coffees',
  'flexible delivery you can pause any time',
  'transparent sourcing and direct-trade relationships',
  'great value per bag',
];

const ESPRESSO_STRENGTHS = [
  'consistent grind size for espresso',
  'a fast heat-up time',
  'sturdy build quality',
  'an approachable price for beginners',
  'precise temperature control',
];

const GLOBEX_SOURCES = [
  'https://www.g2.com/categories/crm',
  'https://www.capterra.com/customer-relationship-management-software/',
  'https://www.forbes.com/advisor/business/software/best-crm-small-business/',
  'https://www.reddit.com/r/sales/comments/17zq3ab/best_crm_for_small_team/',
];

function simpleCategory(
  name: string,
  topic: string,
  prompts: readonly string[],
  competitors: CategorySpec['competitors'],
  sources: readonly string[],
  strengths: readonly string[] = SOFTWARE_STRENGTHS,
): CategorySpec {
  return {
    name,
    description: `Answers about ${topic}.`,
    topic,
    isArchived: false,
    historyUntilDaysAgo: 1,
    prompts: prompts.map((text) => p(text)),
    competitors,
    sources,
    strengths,
  };
}

export const DEMO_BRAND_ID = 9;
export const HISTORY_DAYS = 121;

export const BRANDS: readonly BrandSpec[] = [
  {
    org: 'globex',
    name: 'Tallyfield CRM',
    website: 'https://www.tallyfield.com',
    aliases: ['Tallyfield'],
    status: 'active',
    isDemo: false,
    executiveSummary:
      'Tallyfield is recommended most often for small B2B teams; Perplexity cites its pricing page, while ChatGPT still favours HubSpot and Pipedrive.',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 1,
    models: SEARCH_MODELS,
    visibility: 0.75,
    trend: 0.15,
    unpublishedRuns: [[0, 1]],
    categories: [
      simpleCategory(
        'CRM for small business',
        'CRMs for small businesses',
        [
          'Best CRM for a small B2B sales team',
          'Simple CRM that works inside Gmail',
          'Cheapest CRM with email sequences',
        ],
        [
          c('HubSpot CRM', 'https://www.hubspot.com/products/crm', {
            key: 'hubspot',
            canonicalName: 'HubSpot',
          }),
          c('Pipedrive', 'https://www.pipedrive.com'),
          c('Salesforce Starter', 'https://www.salesforce.com/small-business', {
            key: 'salesforce',
            canonicalName: 'Salesforce',
          }),
          c('Zoho CRM', 'https://www.zoho.com/crm'),
          c('Freshsales', 'https://www.freshworks.com/crm/sales'),
          c('Copper', 'https://www.copper.com'),
          c('Close', 'https://www.close.com'),
          c('monday sales CRM', 'https://monday.com/crm', { key: 'monday', canonicalName: 'monday.com' }),
        ],
        GLOBEX_SOURCES,
      ),
      simpleCategory(
        'Sales pipeline tools',
        'pipeline management tools',
        [
          'Best tool to visualize a sales pipeline',
          'Pipedrive alternatives for startups',
          'CRM with the best deal forecasting',
        ],
        [
          c('Pipedrive', 'https://www.pipedrive.com'),
          c('Close', 'https://www.close.com'),
          c('HubSpot Sales Hub', 'https://www.hubspot.com/products/sales', {
            key: 'hubspot',
            canonicalName: 'HubSpot',
          }),
          c('Attio', 'https://attio.com'),
          c('folk', 'https://www.folk.app'),
        ],
        GLOBEX_SOURCES,
      ),
      simpleCategory(
        'Email marketing automation',
        'email marketing platforms',
        [
          'Best email marketing tool that syncs with a CRM',
          'Mailchimp alternatives for B2B',
          'Email automation software for small businesses',
        ],
        [
          c('Mailchimp', 'https://mailchimp.com'),
          c('Klaviyo', 'https://www.klaviyo.com'),
          c('ActiveCampaign', 'https://www.activecampaign.com'),
          c('Brevo', 'https://www.brevo.com', { aliases: ['Sendinblue'] }),
          c('Kit', 'https://kit.com', { key: 'convertkit', canonicalName: 'Kit (ConvertKit)' }),
        ],
        ['https://www.emailtooltester.com/en/best-email-marketing-services/', ...GLOBEX_SOURCES.slice(0, 2)],
      ),
    ],
  },
  {
    org: 'globex',
    name: 'Tallyfield Dialer',
    website: 'https://www.tallyfield.com/dialer',
    aliases: [],
    status: 'paused',
    isDemo: false,
    executiveSummary: '',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 10,
    models: THREE_MODELS,
    visibility: 0.6,
    trend: 0.05,
    categories: [
      simpleCategory(
        'Sales dialers',
        'sales dialers',
        ['Best power dialer for SDR teams', 'Aircall vs Dialpad for outbound sales'],
        [
          c('Aircall', 'https://aircall.io'),
          c('Dialpad', 'https://www.dialpad.com'),
          c('RingCentral', 'https://www.ringcentral.com'),
          c('JustCall', 'https://justcall.io'),
          c('Orum', 'https://www.orum.com'),
        ],
        ['https://www.g2.com/categories/power-dialer', 'https://www.reddit.com/r/sales/'],
      ),
    ],
  },
  {
    org: 'initech',
    name: 'Ledgerline',
    website: 'https://ledgerline.app',
    aliases: ['Ledgerline Books'],
    status: 'active',
    isDemo: false,
    executiveSummary: '',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 1,
    models: THREE_MODELS,
    visibility: 0.65,
    trend: 0.1,
    categories: [
      simpleCategory(
        'Small business accounting',
        'accounting apps',
        [
          'Best accounting software for freelancers',
          'QuickBooks alternatives for small businesses',
          'Accounting software with automatic bank feeds',
        ],
        [
          c('QuickBooks Online', 'https://quickbooks.intuit.com', {
            key: 'quickbooks',
            canonicalName: 'QuickBooks',
          }),
          c('Xero', 'https://www.xero.com'),
          c('FreshBooks', 'https://www.freshbooks.com'),
          c('Wave', 'https://www.waveapps.com'),
          c('Zoho Books', 'https://www.zoho.com/books'),
          c('Sage Accounting', 'https://www.sage.com', { key: 'sage', canonicalName: 'Sage' }),
        ],
        [
          'https://www.nerdwallet.com/best/small-business/accounting-software',
          'https://www.pcmag.com/picks/the-best-small-business-accounting-software',
        ],
      ),
    ],
  },
  {
    org: 'umbrella',
    name: 'Pillpoint Pharmacy',
    website: 'https://www.pillpoint.health',
    aliases: ['Pillpoint'],
    status: 'active',
    isDemo: false,
    executiveSummary: '',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 1,
    models: THREE_MODELS,
    visibility: 0.6,
    trend: 0.1,
    categories: [
      simpleCategory(
        'Online pharmacies',
        'online pharmacies',
        [
          'Cheapest online pharmacy for generic prescriptions',
          'Which online pharmacy delivers the fastest?',
          'Is it safe to buy prescriptions online?',
        ],
        [
          c('Amazon Pharmacy', 'https://pharmacy.amazon.com', { key: 'amazon-pharmacy' }),
          c('CVS Pharmacy', 'https://www.cvs.com', { key: 'cvs', canonicalName: 'CVS' }),
          c('Walgreens', 'https://www.walgreens.com'),
          c('Mark Cuban Cost Plus Drug Company', 'https://costplusdrugs.com', {
            key: 'cost-plus-drugs',
            canonicalName: 'Cost Plus Drugs',
          }),
          c('GoodRx', 'https://www.goodrx.com'),
          c('Capsule', 'https://www.capsule.com'),
        ],
        [
          'https://www.fda.gov/drugs/besaferx-your-source-online-pharmacy-information',
          'https://www.healthline.com/health/best-online-pharmacy',
        ],
        [
          'low prices on generics',
          'same-day delivery in many cities',
          'easy prescription transfers',
          'a pharmacist chat',
        ],
      ),
    ],
  },
  {
    org: 'hooli',
    name: 'Nestwell',
    website: 'https://www.nestwellhome.com',
    aliases: ['Nestwell Thermostat'],
    status: 'active',
    isDemo: false,
    executiveSummary: '',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 1,
    models: THREE_MODELS,
    visibility: 0.6,
    trend: 0.05,
    categories: [
      simpleCategory(
        'Smart thermostats',
        'smart thermostats',
        [
          'Best smart thermostat for energy savings',
          'Smart thermostat that works without a C-wire',
          'ecobee vs Nest: which is better?',
        ],
        [
          c(
            'Google Nest Learning Thermostat',
            'https://store.google.com/product/nest_learning_thermostat_4th_gen',
            {
              key: 'google-nest',
              canonicalName: 'Google Nest',
            },
          ),
          c('ecobee', 'https://www.ecobee.com'),
          c('Honeywell Home', 'https://www.honeywellhome.com'),
          c('Amazon Smart Thermostat', 'https://www.amazon.com/dp/B08J4CFPJL', {
            key: 'amazon-smart-thermostat',
          }),
          c('Mysa', 'https://getmysa.com'),
          c('Emerson Sensi', 'https://sensi.copeland.com', { key: 'sensi', canonicalName: 'Sensi' }),
        ],
        [
          'https://www.wired.com/gallery/best-smart-thermostats/',
          'https://www.energystar.gov/productfinder/product/certified-connected-thermostats',
        ],
        [
          'learning schedules that cut heating bills',
          'remote sensors for hot and cold rooms',
          'a bright, simple display',
        ],
      ),
    ],
  },
  {
    org: 'acme',
    name: 'Deskflow',
    website: 'https://www.deskflow.io',
    aliases: [],
    status: 'archived',
    isDemo: false,
    executiveSummary: 'Retired product line; kept for its history.',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 92,
    models: THREE_MODELS,
    visibility: 0.6,
    trend: 0,
    categories: [
      {
        ...HELP_DESK,
        prompts: HELP_DESK.prompts.slice(0, 2),
        competitors: HELP_DESK.competitors.slice(0, 5),
        historyUntilDaysAgo: 92,
      },
    ],
  },
  {
    org: 'acme',
    name: 'Brightdesk Chat',
    website: 'https://chat.brightdesk.io',
    aliases: [],
    status: 'merged',
    isDemo: false,
    mergedInto: 'Brightdesk',
    executiveSummary: '',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 61,
    models: THREE_MODELS,
    visibility: 0.7,
    trend: 0.05,
    categories: [
      { ...LIVE_CHAT, name: 'Live chat software', isArchived: false, prompts: LIVE_CHAT.prompts.slice(0, 2) },
    ],
  },
  {
    org: 'acme',
    name: 'Copperline Coffee',
    website: 'https://www.copperlinecoffee.com',
    aliases: ['Copperline', 'Copperline Coffee Roasters'],
    status: 'active',
    isDemo: false,
    executiveSummary:
      'Copperline appears in about a third of coffee subscription answers, usually after Trade and Atlas; espresso gear answers rarely mention it.',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 1,
    models: SEARCH_MODELS,
    visibility: 0.8,
    trend: 0.1,
    failedRuns: [[2, 5]],
    categories: [
      simpleCategory(
        'Coffee subscriptions',
        'coffee subscriptions',
        [
          'Best coffee subscription for beginners',
          'Which coffee subscription has the freshest beans?',
          'Coffee subscription gift ideas for a coffee snob',
        ],
        [
          c('Trade Coffee', 'https://www.drinktrade.com', { key: 'trade' }),
          c('Atlas Coffee Club', 'https://atlascoffeeclub.com'),
          c('Blue Bottle Coffee', 'https://bluebottlecoffee.com', { key: 'blue-bottle' }),
          c('Bean Box', 'https://beanbox.com'),
          c('Driftaway Coffee', 'https://driftaway.coffee'),
          c('Counter Culture Coffee', 'https://counterculturecoffee.com', { key: 'counter-culture' }),
          c('Stumptown Coffee Roasters', 'https://www.stumptowncoffee.com', { key: 'stumptown' }),
        ],
        [
          'https://www.seriouseats.com/best-coffee-subscriptions',
          'https://www.nytimes.com/wirecutter/reviews/best-coffee-subscription/',
          'https://www.reddit.com/r/Coffee/comments/16c8n1v/best_subscription/',
        ],
        COFFEE_STRENGTHS,
      ),
      simpleCategory(
        'Specialty coffee beans',
        'specialty coffee roasters',
        [
          'Best whole bean coffee for pour over',
          'Where to buy ethically sourced coffee beans online',
          'Best medium roast coffee beans for espresso at home',
        ],
        [
          c('Counter Culture Coffee', 'https://counterculturecoffee.com', { key: 'counter-culture' }),
          c('Onyx Coffee Lab', 'https://onyxcoffeelab.com', { key: 'onyx' }),
          c('Stumptown Coffee Roasters', 'https://www.stumptowncoffee.com', { key: 'stumptown' }),
          c('Intelligentsia', 'https://www.intelligentsia.com'),
          c('Verve Coffee Roasters', 'https://www.vervecoffee.com', { key: 'verve' }),
          c('Lavazza', 'https://www.lavazza.com'),
        ],
        ['https://www.coffeereview.com/', 'https://www.bbcgoodfood.com/review/best-coffee-beans'],
        COFFEE_STRENGTHS,
      ),
      simpleCategory(
        'Home espresso gear',
        'home espresso setups',
        [
          'What do I need to start making espresso at home?',
          'Best coffee grinder under $300',
          'Which beans and grinder work best with a Breville Bambino?',
        ],
        [
          c('Breville', 'https://www.breville.com'),
          c("De'Longhi", 'https://www.delonghi.com', { key: 'delonghi' }),
          c('Baratza', 'https://baratza.com'),
          c('Gaggia', 'https://www.gaggia.com'),
          c('Fellow', 'https://fellowproducts.com'),
          c('Rancilio', 'https://www.ranciliogroup.com'),
        ],
        [
          'https://www.nytimes.com/wirecutter/reviews/best-espresso-machine/',
          'https://www.youtube.com/watch?v=jP0eXbgkMxo',
        ],
        ESPRESSO_STRENGTHS,
      ),
    ],
  },
  {
    org: 'acme',
    name: 'Brightdesk',
    website: 'https://www.brightdesk.io',
    aliases: ['BrightDesk', 'Brightdesk.io'],
    status: 'active',
    isDemo: true,
    executiveSummary:
      'Brightdesk now shows up in most help desk answers for small SaaS teams and is climbing in AI chatbot answers; ServiceNow and Jira Service Management still dominate IT service management prompts. G2 and Capterra are the most cited sources.',
    historyFromDaysAgo: HISTORY_DAYS,
    historyUntilDaysAgo: 1,
    models: ALL_MODELS,
    visibility: 0.72,
    trend: 0.2,
    categories: [HELP_DESK, AI_CHATBOTS, ITSM, LIVE_CHAT],
    unpublishedRuns: [[1, 1]],
    inFlightCategory: 0,
    // 4 prompts × 6 models × 22 asks = 528 responses: more than one run-detail page of 500.
    bigRun: { category: 0, daysAgo: 7, repeats: 22 },
  },
  // Last, so that every id before it is the same as before Sightline monitored anything itself.
  {
    org: 'acme',
    name: 'Brightdesk Voice',
    website: 'https://voice.brightdesk.io',
    aliases: ['BrightDesk Voice'],
    status: 'active',
    isDemo: false,
    executiveSummary: '',
    historyFromDaysAgo: 14,
    historyUntilDaysAgo: 1,
    models: ['simulated'],
    visibility: 0,
    trend: 0,
    categories: [
      simpleCategory(
        'Call center software',
        'call center software',
        [
          'Best call center software for a growing support team',
          'Cloud contact center with AI call summaries',
          'Which call center software integrates with a help desk?',
        ],
        [
          c('Aircall', 'https://aircall.io'),
          c('Talkdesk', 'https://www.talkdesk.com'),
          c('Five9', 'https://www.five9.com'),
          c('RingCentral Contact Center', 'https://www.ringcentral.com', { key: 'ringcentral' }),
        ],
        [],
      ),
    ],
    monitoredDailyAt: '06:00',
  },
];
