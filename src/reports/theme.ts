import type { Tone } from './document.ts';

// The one palette both renderers use, so the PDF and the HTML of a report look alike.
export const COLORS = {
  ink: '#0f172a',
  text: '#1e293b',
  muted: '#64748b',
  faint: '#94a3b8',
  rule: '#e2e8f0',
  panel: '#f1f5f9',
  stripe: '#f8fafc',
  band: '#0f1f3d',
  bandText: '#cbd5e1',
  accent: '#4f46e5',
  accentSoft: '#e0e7ff',
  other: '#94a3b8',
  track: '#eef2f7',
  white: '#ffffff',
} as const;

export const TONE_COLORS: Record<Tone, string> = {
  good: '#047857',
  bad: '#b91c1c',
  neutral: '#475569',
};

/** Sentiment segments and priority tags: a little lighter than the text tones. */
export const TONE_FILLS: Record<Tone, string> = {
  good: '#10b981',
  bad: '#ef4444',
  neutral: '#94a3b8',
};
