import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfTextItem {
  str: string;
  /** Where its baseline starts, in PDF points from the page's bottom left. */
  x: number;
  y: number;
  width: number;
}

/** The text items of each page of a PDF, as a reader's viewer extracts them, and where they sit. */
export async function pdfTextItems(bytes: Uint8Array): Promise<PdfTextItem[][]> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false })
    .promise;
  const pages: PdfTextItem[][] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(
      content.items.flatMap((item) =>
        'str' in item && item.str.trim() !== ''
          ? [
              {
                str: item.str,
                x: item.transform[4] as number,
                y: item.transform[5] as number,
                width: item.width,
              },
            ]
          : [],
      ),
    );
  }
  await doc.destroy();
  return pages;
}

/** The text items of each page of a PDF, as a reader's viewer extracts them. */
export async function pdfPages(bytes: Uint8Array): Promise<string[][]> {
  return (await pdfTextItems(bytes)).map((page) => page.map((item) => item.str));
}
