// The demo manifest: where the named fixtures are, so tests and people can find the interesting
// cases without hunting (docs/notes/cli.md). The lookups are src/db/demo-manifest.ts.
import type { Db } from '../db/connect.ts';
import { type DemoManifest, readDemoManifest } from '../db/demo-manifest.ts';
import { ORGS } from './catalog.ts';

export type { DemoManifest } from '../db/demo-manifest.ts';

/** The organization of the public demo brand, and of the key `sightline start` mints. */
export const DEMO_ORG = 'acme';

/** The manifest of the demo in this database, or undefined when the demo was never seeded. */
export function findDemoManifest(db: Db): Promise<DemoManifest | undefined> {
  return readDemoManifest(
    db,
    DEMO_ORG,
    ORGS.map((o) => o.slug),
  );
}
