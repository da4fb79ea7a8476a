import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Databases } from '../../src/db/connect.ts';
import type { App } from '../../src/http/types.ts';
import type { TestContext } from './context.ts';

// What the analytics suites share besides the fixture builder: a pinned clock, and the brand
// whose website decides which cited domains are the brand's own.

export const ACME = { name: 'Acme', website: 'https://acme.example' };

/** An app on the test database whose "now" is whatever the test sets `clock.now` to. */
export async function appWithClock(
  ctx: TestContext,
  now: string,
  overrides: Partial<Config> = {},
  databases: Databases = ctx.dbs,
): Promise<{ app: App; clock: { now: Date } }> {
  const clock = { now: new Date(now) };
  const app = await buildApp(
    { ...ctx.config, ...overrides },
    { databases, logger: false, clock: () => clock.now },
  );
  await app.ready();
  return { app, clock };
}
