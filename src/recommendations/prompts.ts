// The generation prompts and the templates of drafted artifacts, kept as files in the repository
// beside this one (prompts/NAME.vN.md), so a draft's `generationPromptVersion` (NAME@N) names the
// exact text it came from. A change of wording is a new file with the next N, never an edit.
import { readFileSync } from 'node:fs';
import type { ArtifactType } from '../domain/artifact-drafts.ts';

export interface VersionedText {
  /** `content-brief@1` for prompts/content-brief.v1.md. */
  version: string;
  text: string;
}

function load(file: string): VersionedText {
  const name = /^([a-z-]+)\.v(\d+)\.md$/.exec(file);
  if (!name) throw new Error(`prompt file ${file} is not named NAME.vN.md`);
  return {
    version: `${name[1]}@${name[2]}`,
    text: readFileSync(new URL(`./prompts/${file}`, import.meta.url), 'utf8').trimEnd(),
  };
}

/** The current prompt (sent to an engine) and template (filled when no engine writes) per type. */
export const DRAFT_TEXTS: Record<ArtifactType, { prompt: VersionedText; template: VersionedText }> = {
  content_brief: {
    prompt: load('content-brief.v1.md'),
    template: load('content-brief-template.v1.md'),
  },
  outreach_note: {
    prompt: load('outreach-note.v2.md'),
    template: load('outreach-note-template.v2.md'),
  },
};
