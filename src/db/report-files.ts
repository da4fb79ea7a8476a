import type { Readable } from 'node:stream';
import type { Db } from './connect.ts';

// Where rendered reports live. Today the bytes sit in the report_files table; the route only sees
// this interface, so an object store (S3 and the like, streaming the body) can replace it later.

export type ReportFileKind = 'pdf' | 'html';

export interface ReportFile {
  contentType: string;
  byteLength: number;
  body: Uint8Array | Readable;
}

export interface ReportFileStore {
  get(orgId: number, artifactId: number, kind: ReportFileKind): Promise<ReportFile | undefined>;
}

export function databaseReportFileStore(db: Db): ReportFileStore {
  return {
    async get(orgId, artifactId, kind) {
      const row = await db
        .selectFrom('report_files')
        .select(['content_type', 'content'])
        .where('org_id', '=', orgId)
        .where('artifact_id', '=', artifactId)
        .where('kind', '=', kind)
        .executeTakeFirst();
      // Content-Length comes from the bytes themselves, not the stored byte_length: a stale
      // column must never make the response disagree with its body.
      return row
        ? { contentType: row.content_type, byteLength: row.content.byteLength, body: row.content }
        : undefined;
    },
  };
}
