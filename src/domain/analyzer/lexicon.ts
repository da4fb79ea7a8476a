// The sentiment lexicon: words (folded: lower case, no diacritics) scored +1/−1, strong ones ±2.
// Kept small and tuned to how answer engines describe products; English first, with the commonest
// evaluative words of Spanish, French, German, Portuguese and Italian. Add words here, with a corpus
// case that needs them.

const scored = (weight: number, text: string): Array<[string, number]> =>
  text
    .trim()
    .split(/\s+/)
    .map((w) => [w.replace(/_/g, ' '), weight]);

export const LEXICON = new Map<string, number>([
  ...scored(
    1,
    `good great better best strong robust powerful reliable intuitive easy easier easiest simple simpler
     straightforward user-friendly friendly flexible versatile affordable inexpensive cheaper fast faster
     fastest quick quicker smooth seamless seamlessly polished clean elegant sleek modern popular favorite
     favourite loved love loves recommended recommend recommends top leading leader trusted secure solid
     efficient effective comprehensive capable generous valuable useful helpful responsive scalable
     innovative standout shines excels excel praised well-suited ideal perfect accurate feature-rich
     winner preferred advantage advantages benefit benefits happy satisfied enjoy enjoyable convenient
     customizable customisable thoughtful well-designed well-documented stable dependable performant
     lightweight transparent reasonable competitive budget-friendly cost-effective worth improved
     streamlines simplifies empowers mature proven award-winning top-rated go-to best-in-class
     easy-to-use reputable renowned favored favoured strongest stronger cheap comfortable comfy plush
     supportive polish praise praises wins bouncy fun
     stands_out value_for_money top_pick top_choice well_documented well_designed
     polyvalent barato barata
     mejor mejores bueno buena buenos buenas facil potente intuitivo intuitiva fiable rapido rapida
     recomendado recomendada ideal destaca
     meilleur meilleure meilleurs bon bonne facile puissant puissante intuitif fiable rapide recommande
     beste besten bester gut gute guter guten einfach leistungsstark intuitiv zuverlassig schnell
     empfehlenswert
     melhor melhores bom boa poderoso confiavel
     migliore migliori buono buona semplice potente affidabile veloce consigliato`,
  ),
  ...scored(
    2,
    `excellent outstanding exceptional superb fantastic amazing impressive brilliant phenomenal
     excelente excellente hervorragend ausgezeichnet eccellente`,
  ),
  ...scored(
    -1,
    `bad poor poorly worse disappointing disappointed frustrating frustrated annoying clunky buggy bugs
     glitchy unreliable unstable slow slower sluggish laggy expensive pricey costly overpriced steep
     complex complicated confusing cumbersome difficult hard harder tedious limited limitation limitations
     lacks lack lacking missing weak weaker outdated dated clumsy rigid inflexible overwhelming bloated
     cluttered messy problem problems issue issues downside downsides drawback drawbacks concern concerns
     complaint complaints criticized criticised struggle struggles fails failed failure crash crashes
     breach breaches insecure vulnerable outage outages avoid discontinued deprecated declining
     restrictive unintuitive inconsistent mediocre lackluster subpar inferior risky hassle painful
     unfortunately sadly inadequate insufficient unresponsive lags heavy heavier unhelpful worries worry
     overkill
     learning_curve falls_short lags_behind
     caro cara costoso costosa dificil lento lenta limitado limitada complejo complicado confuso malo mala
     cher chere couteux couteuse difficile lent lente complexe complique mauvais mauvaise
     teuer schwierig langsam begrenzt komplex kompliziert schlecht schlechter
     dificil ruim
     costoso difficile lento limitato complicato`,
  ),
  ...scored(-2, `worst terrible awful horrible pessimo peor pire`),
  // Neutral phrases that contain a scored word ("issue tracking" is a feature, not a problem).
  ...scored(
    0,
    `issue_tracking issue_tracker bug_tracking bug_tracker free_plan complex_projects
     complex_workflows complex_needs complex_teams`,
  ),
]);

/** Words that flip the polarity of the next few words ("not intuitive", "isn't cheap", "less reliable"). */
export const NEGATORS = new Set(
  `not no never none neither nor without hardly barely scarcely less fewer cannot cant dont doesnt isnt
   arent wasnt werent wont shouldnt couldnt wouldnt
   sin nunca nada jamais pas sans nicht kein keine keinen ohne nao sem non senza`
    .trim()
    .split(/\s+/),
);

/** Phrases that look like a negation but are not ("not only … but also"). */
export const NOT_NEGATING_NEXT = new Set(['only', 'just', 'merely', 'doubt']);

/** The longest lexicon phrase, in words. */
export const MAX_PHRASE_WORDS = 3;

/** First words of the lexicon's phrases: only they can start a longer match. */
export const PHRASE_HEADS = new Set(
  [...LEXICON.keys()].filter((k) => k.includes(' ')).map((k) => k.slice(0, k.indexOf(' '))),
);
