import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** The text items of each page of a PDF, as a reader's viewer extracts them. */
export async function pdfPages(bytes: Uint8Array): Promise<string[][]> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false })
    .promise;
  const pages: string[][] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(content.items.flatMap((item) => ('str' in item && item.str.trim() !== '' ? [item.str] : [])));
  }
  await doc.destroy();
  return pages;
}
