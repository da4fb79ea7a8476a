// Brand names that are also ordinary words. A name in these lists counts as a mention only where
// the answer uses it as a name (see matcher.ts and docs/analyzer.md); a name not listed here counts
// wherever it appears. The lists are deliberately hand-kept: add a word when a real brand needs it.

const words = (text: string) => new Set(text.trim().split(/\s+/));

/** Ordinary English words that double as product or company names. */
export const COMMON_WORDS = words(`
  about above access act action active adapt air alert align all alpha amazon amber anchor angle
  apex apple arc arch area arrow art ascend aspire atlas atom aura autumn avid axis
  balance bamboo band bank base basic beacon beam bear beat bee bench best big bird bit
  black blade blank blaze blend bliss block bloom blue blueprint board bold bolt bond boost box
  brave breeze brew brick bridge bright brilliant buffer build bubble bullet bumble burst
  cache calm camp canvas capital care cargo cascade cash catalyst cell center chain chalk champion
  chance chart chase check chime chip circle citizen clarity clay clear clever click climb clip
  clock close cloud coach coast coda code coin comet command common compass complete compose
  concept cone connect copper coral core cosmos cotton craft crane credit crest crew cricket cross
  crown crystal cube current curve cycle
  dash data dawn deck delta depot desk detail dial diamond digit direct discover dock dot draft
  dragon drift drive drop dune dust
  eagle echo edge element elevate ember emerge engine epic equal essential ether even ever evolve
  excel expand express
  fabric factor fair faith falcon feather fiber field figure final fire first fit flag flame flash
  fleet flex flight flint float flock flow fluent flux focus force forge form fort forward
  foundation fountain fox frame fresh front frontier fuel fusion future
  gain galaxy game gap garden gate gather gear gem genius giant glass glide globe glow gold grace
  grain graph grasp gravity green grid groove ground grove grow guard guide gusto
  habit harbor harmony harvest haven heap heart height helix help hero hive hold honey hook hope
  horizon host hub hue
  icon ideal ignite image impact index infinity insight inspire instinct intercom iris iron island
  jam jet jewel journey joy jump jungle
  keen kernel key kind kite knot
  lab ladder lagoon lake lamp land lane lantern lark laser lattice launch layer lead leaf lean
  ledger legacy lemon lens level lever liberty life lift light lime line linear link lion list
  live loom loop lotus lucid lumen lunar
  magnet main major maple marble mark market marvel matrix maven meadow medium mercury merge mesh
  metric metro mint mirror mission mode module moment momentum monarch moon mosaic motion mountain
  muse
  native navigator nest network new nexus nimble noble node north notion nova nucleus nugget
  oak oasis ocean octave omni onyx open optimal oracle orbit orchard origin outline outreach
  pace pact page palette panel paper parallel park path peak pearl pebble pilot pine pioneer pitch
  pivot pixel plaid plain planet plum pocket point polar pond portal post postscript prime prism
  probe profile progress prompt proof pulse pure
  quest quick quill quip
  radar radiant rain ramp range rapid raven reach ready realm reef relay remote render resolve
  retreat rhythm ribbon ridge ripple rippling rise river road rock rocket root rose route rover ruby
  sage sail salt scale scout scribe sculpt sea seed segment sense sentry shape share shelf shell
  shield shift shine signal silk silver simple sketch sky slack slate smart smooth snap solar solid
  sonic spark sparrow spectrum sphere spire splash spring sprout square stack stage star state
  station steady steel stellar step stone storm story stream stride stripe strong studio summit
  sun surge swift sync
  tactic tag tailor talent target task teal team teams tempo terrain thread thrive tide tiger timber
  token torch total tower trace track trail trek trend tribe trident true trust tulip turbo
  unity universe upward urban
  valley value vanguard vault vector velocity venture verse vertex view vine violet vision vista
  vital vivid voice volt vortex voyage
  wake wander wave wealth weave willow wind wing wise wonder word work world
  yield zen zenith zest zone zoom
`);

/** Weekdays and months: capitalised in ordinary prose too, so capitalisation proves nothing. */
export const CALENDAR_WORDS = words(`
  monday tuesday wednesday thursday friday saturday sunday
  january february march april may june july august september october november december
`);

/** Words that, just before a calendar word, show it is a date ("on Monday", "by March"). */
export const TIME_PREPOSITIONS = words(`
  on by until till til since every each next last this from before after early late mid during
  of in for through thru starting
`);
