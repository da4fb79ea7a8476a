import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';
import { ConfigError, type ReportFontFile } from '../config.ts';

// The report typefaces: DejaVu Sans (Bitstream Vera licence, permissive) from the dejavu-fonts-ttf
// package, read from node_modules and embedded in every PDF, so a report renders the same on any
// machine and nothing is ever fetched. DejaVu has no CJK, Thai, Devanagari or emoji glyphs: the
// operator's REPORT_FONTS (e.g. Noto Sans CJK) draw the texts that need them. Loaded once per
// process.

const require = createRequire(import.meta.url);

export interface ReportFace {
  /** The file's bytes, as pdfkit registers them. */
  data: Buffer;
  /** The face of a collection, by PostScript name. */
  face: string | undefined;
  bold: boolean;
  /** How far the face rises above its baseline, in ems: pdfkit places a text's top, not its baseline. */
  ascent: number;
  covers(codePoint: number): boolean;
}

export interface ReportFonts {
  regular: ReportFace;
  bold: ReportFace;
  /** REPORT_FONTS, in the operator's order. */
  fallbacks: readonly ReportFace[];
}

type Font = fontkit.Font & { 'OS/2'?: { usWeightClass?: number } };

function isCollection(font: fontkit.Font | fontkit.FontCollection): font is fontkit.FontCollection {
  return 'fonts' in font && Array.isArray(font.fonts);
}

const notAFont = (file: string) =>
  new ConfigError(`REPORT_FONTS: ${file} is not a font file (TrueType, OpenType, WOFF or a collection)`);
const damaged = (file: string) =>
  new ConfigError(`REPORT_FONTS: ${file} is damaged: its tables cannot be read (a file cut short?)`);

/**
 * The face the operator named, read far enough to trust: fontkit reads tables when asked, so a
 * file cut short opened and failed later inside a report ("Cannot read properties of undefined").
 * Its metrics, and the outlines of its first and last glyphs (the ends of its glyph data), are
 * read here.
 */
function faceOf(data: Buffer, face: string | undefined, file: string): ReportFace {
  let opened: fontkit.Font | fontkit.FontCollection | null;
  try {
    opened = fontkit.create(data);
  } catch {
    throw notAFont(file);
  }
  let font: Font;
  if (isCollection(opened)) {
    const names = opened.fonts.map((f) => f.postscriptName);
    if (names.some((name) => typeof name !== 'string' || name === '')) throw damaged(file);
    const found = face === undefined ? undefined : opened.fonts.find((f) => f.postscriptName === face);
    if (!found)
      throw new ConfigError(
        `REPORT_FONTS: ${file} is a collection; name one of its faces as ${file}#FACE (${face === undefined ? '' : `it has no "${face}"; `}faces: ${names.join(', ')})`,
      );
    font = found;
  } else if (face !== undefined) {
    throw new ConfigError(
      `REPORT_FONTS: ${file} holds one face, not a collection: name it without "#${face}"`,
    );
  } else font = opened;
  let bold: boolean;
  let ascent: number;
  try {
    bold = (font['OS/2']?.usWeightClass ?? 400) >= 600;
    ascent = font.ascent / font.unitsPerEm;
    for (const id of [0, font.numGlyphs - 1]) void font.getGlyph(id).path.toSVG();
  } catch {
    throw damaged(file);
  }
  if (!Number.isFinite(ascent)) throw damaged(file);
  // A lookup per character of every text a report measures: each answer is kept.
  const known = new Map<number, boolean>();
  return {
    data,
    face,
    bold,
    ascent,
    covers(codePoint) {
      let has = known.get(codePoint);
      if (has === undefined) {
        has = font.hasGlyphForCodePoint(codePoint);
        known.set(codePoint, has);
      }
      return has;
    },
  };
}

function readFace(file: string, face?: string): ReportFace {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (error) {
    throw new ConfigError(`REPORT_FONTS: ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  return faceOf(data, face, file);
}

let dejaVu: { regular: ReportFace; bold: ReportFace } | undefined;
const fallbacks = new Map<string, ReportFace>();

/** The report's fonts; throws ConfigError, naming the file, for a REPORT_FONTS entry that is not a font. */
export function reportFonts(files: readonly ReportFontFile[] = []): ReportFonts {
  dejaVu ??= {
    regular: readFace(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    bold: readFace(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  };
  return {
    ...dejaVu,
    fallbacks: files.map(({ file, face }) => {
      const key = `${file}#${face ?? ''}`;
      let loaded = fallbacks.get(key);
      if (!loaded) {
        loaded = readFace(file, face);
        fallbacks.set(key, loaded);
      }
      return loaded;
    }),
  };
}
