// Request targets are normalised once, before routing (Fastify's rewriteUrl), so that the gate,
// the router and the access log's route read one and the same path. The normalisation is the
// part of RFC 3986 §6.2.2 that the router itself applies when matching: escapes of unreserved
// characters are decoded (`%61pi` is `api`), other escapes get upper-case hex (`%2f` and `%2F`
// are one path). Like the router, it keeps empty and dot segments as they are: `/api//brands/`
// and `/api/x/../brands/` name no endpoint. The query string is left exactly as sent.

const ESCAPE = /%([0-9A-Fa-f]{2})/g;
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/** The request target with the escapes of its path normalised. */
export function canonicalUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt);
  const normalised = path.replace(ESCAPE, (sequence, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : sequence.toUpperCase();
  });
  return normalised + query;
}
