import { connect } from 'node:net';

// HTTP over a bare socket, byte for byte: `inject` and Node's HTTP client both normalise or refuse
// what an attacker can send (dot segments, control bytes, duplicate or oversized headers).

export interface RawResponse {
  statusCode: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` (request line and headers, without the blank line) and reads the whole answer. */
export function rawExchange(port: number, head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close right after answering a malformed request, before it read it all.
      if (error.code === 'ECONNRESET' && chunks.length > 0) socket.emit('end');
      else reject(error);
    });
    socket.on('end', () => {
      try {
        resolve(parse(Buffer.concat(chunks).toString('latin1')));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(`${head}\r\n\r\n`, 'latin1');
  });
}

function parse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  if (split === -1) throw new Error(`no complete HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const statusCode = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  return { statusCode, headers, body: Buffer.from(body, 'latin1').toString('utf8') };
}

function unchunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!size) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** A GET of `target` exactly as written, with `headers` as [name, value] pairs (repeats allowed). */
export function rawGet(
  port: number,
  target: string,
  headers: ReadonlyArray<readonly [string, string]> = [],
): Promise<RawResponse> {
  const lines = [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return rawExchange(port, lines.join('\r\n'));
}
