// @ts-check
// Loaded first by `bin/sightline.js` and, with `node --import`, by the test runner's processes:
// every import of Kysely or TypeBox after it resolves to the bundle (bundles.js says why).
import { packageBundle, resolveBundledTo } from './bundles.js';

const files = await packageBundle();
if (files) resolveBundledTo(files);
