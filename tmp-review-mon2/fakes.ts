// Scratch (review-mon2): fakes on fixed ports 8601 (chatgpt) 8602 (perplexity), control on 8603.
import net from 'node:net';
import { createServer } from 'node:http';
const ports = [8601, 8602];
const origListen = net.Server.prototype.listen;
(net.Server.prototype as any).listen = function (this: net.Server, ...args: any[]) {
  if (args[0] === 0) args[0] = ports.shift();
  return (origListen as any).apply(this, args);
};
const { startFakeVendor, PROMPT } = await import('../test/support/fake-engines.ts');
const PROMPTS = [PROMPT, 'Which CRM is easiest to set up?', 'What CRM do sales teams of five use?', 'Is there a CRM with simple pricing?', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10'];
const chatgpt = await startFakeVendor('chatgpt', { key: 'sk-test', model: 'gpt-5-mini', prompts: PROMPTS });
const perplexity = await startFakeVendor('perplexity', { key: 'pplx-test', model: 'sonar', prompts: PROMPTS });
const fakes: Record<string, any> = { chatgpt, perplexity };
createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const url = new URL(req.url ?? '/', 'http://x');
  const f = fakes[url.searchParams.get('v') ?? 'chatgpt'];
  if (url.pathname === '/fallback') f.fallback = JSON.parse(Buffer.concat(chunks).toString());
  if (url.pathname === '/script') f.script(...JSON.parse(Buffer.concat(chunks).toString()));
  if (url.pathname === '/release') f.release();
  if (url.pathname === '/reset') f.requests.length = 0;
  res.end(JSON.stringify({ requests: f.requests.length, held: f.held, prompts: f.requests.map((r: any) => r.body.input ?? r.body.messages?.[0]?.content) }));
}).listen(8603, '127.0.0.1');
console.log('fakes up', chatgpt.baseUrl, perplexity.baseUrl);
