import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { Db } from './connect.ts';

// Where rendered reports live. Today the bytes sit in the report_files table; the route and the
// report generator only see this interface, so an object store (S3 and the like, streaming the
// body) can replace it later. The generator writes through a store bound to its transaction, so
// a report's files and its status change commit together.

export type ReportFileKind = 'pdf' | 'html';

export interface ReportFile {
  contentType: string;
  byteLength: number;
  body: Uint8Array | Readable;
}

/** A rendered file to store. */
export interface NewReportFile {
  kind: ReportFileKind;
  contentType: string;
  bytes: Uint8Array;
}

export interface ReportFileStore {
  get(orgId: number, artifactId: number, kind: ReportFileKind): Promise<ReportFile | undefined>;
  put(orgId: number, artifactId: number, file: NewReportFile): Promise<void>;
}

/** Files up to this size are read in one query; larger ones are streamed in chunks of it. */
export const STREAM_CHUNK_BYTES = 1024 * 1024;

function fileRow(db: Db, orgId: number, artifactId: number, kind: ReportFileKind) {
  return db
    .selectFrom('report_files')
    .where('org_id', '=', orgId)
    .where('artifact_id', '=', artifactId)
    .where('kind', '=', kind);
}

/**
 * A large file as a stream of chunks, each read by its own query (substr and length count bytes
 * on a blob in SQLite and on bytea in PostgreSQL), so neither the server nor a SQLite reader
 * process ever holds the whole file.
 */
function chunked(
  db: Db,
  orgId: number,
  artifactId: number,
  kind: ReportFileKind,
  byteLength: number,
): Readable {
  async function* chunks() {
    for (let offset = 0; offset < byteLength; offset += STREAM_CHUNK_BYTES) {
      const row = await fileRow(db, orgId, artifactId, kind)
        .select(sql<Uint8Array>`substr(content, ${offset + 1}, ${STREAM_CHUNK_BYTES})`.as('chunk'))
        .executeTakeFirstOrThrow();
      yield Buffer.from(row.chunk.buffer, row.chunk.byteOffset, row.chunk.byteLength);
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

export function databaseReportFileStore(db: Db): ReportFileStore {
  return {
    async get(orgId, artifactId, kind) {
      // Content-Length comes from the bytes themselves, not the stored byte_length: a stale
      // column must never make the response disagree with its body.
      const meta = await fileRow(db, orgId, artifactId, kind)
        .select(['content_type', sql<number>`length(content)`.as('size')])
        .executeTakeFirst();
      if (!meta) return undefined;
      const byteLength = Number(meta.size);
      if (byteLength > STREAM_CHUNK_BYTES) {
        return {
          contentType: meta.content_type,
          byteLength,
          body: chunked(db, orgId, artifactId, kind, byteLength),
        };
      }
      const row = await fileRow(db, orgId, artifactId, kind).select('content').executeTakeFirst();
      return row
        ? { contentType: meta.content_type, byteLength: row.content.byteLength, body: row.content }
        : undefined;
    },

    async put(orgId, artifactId, file) {
      await db
        .insertInto('report_files')
        .values({
          org_id: orgId,
          artifact_id: artifactId,
          kind: file.kind,
          content_type: file.contentType,
          byte_length: file.bytes.byteLength,
          content: file.bytes,
        })
        .execute();
    },
  };
}
