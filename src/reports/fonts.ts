import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// The report typefaces: DejaVu Sans (Bitstream Vera licence, permissive) from the dejavu-fonts-ttf
// package, read from node_modules and embedded in every PDF, so a report renders the same on any
// machine and nothing is ever fetched. Loaded once per process.

const require = createRequire(import.meta.url);

export interface ReportFonts {
  regular: Buffer;
  bold: Buffer;
}

let loaded: ReportFonts | undefined;

export function reportFonts(): ReportFonts {
  loaded ??= {
    regular: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    bold: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  };
  return loaded;
}
