import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// Node's `server.close()` ends the idle keep-alive connections but not one that has not sent a
// byte yet (a browser's or a load balancer's preconnect, a client that opened a socket and then
// gave up before writing): that one stays until the headers timeout, 60 s, and holds the close
// with it, so a graceful stop ran out its 25 s grace and exited 1 with "requests unfinished" when
// none was. Closing the server now ends those too; a connection that has sent anything (a request
// under way, even half-received) is left to finish as before.

/** Keeps track of the server's connections; `close()` ends those that never sent a byte. */
export function unusedConnections(server: Server): { close(): void } {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return {
    close() {
      for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    },
  };
}
