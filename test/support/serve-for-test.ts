// The server process the operations tests start: the real configuration (from the environment),
// app and runServer, plus one public route that takes as long as asked, to have a request in
// flight when the process is told to stop.
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { runServer } from '../../src/server.ts';

const config = loadConfig(process.env);
const app = await buildApp(config);
app.get('/test/slow', { config: { access: { public: true } } }, async (request) => {
  const ms = Number((request.query as { ms?: string }).ms ?? 1000);
  request.log.info({ ms }, 'slow request started');
  await sleep(ms);
  return { finished: true };
});
await runServer(app, config);
