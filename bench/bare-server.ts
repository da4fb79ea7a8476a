// The baseline of `npm run bench:http`: a bare Fastify route answering a fixed JSON body, as fast
// as this machine serves HTTP at all. Run as a child process, like the service, so both pay for
// the same kernel and event loop. Arguments: the port, then a JSON object mapping each path to the
// byte size of the Sightline body it stands in for.
import Fastify from 'fastify';

const [port, sizes] = process.argv.slice(2);
const bodies = new Map<string, Buffer>();
for (const [path, size] of Object.entries(JSON.parse(sizes ?? '{}') as Record<string, number>)) {
  // {"pad":"xxx…"}: valid JSON of exactly the size of the real answer.
  bodies.set(path, Buffer.from(`{"pad":"${'x'.repeat(Math.max(0, size - 10))}"}`));
}

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.get('/bare/:name', async (request, reply) => {
  const body = bodies.get((request.params as { name: string }).name);
  if (!body) return reply.code(404).send();
  return reply.type('application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
