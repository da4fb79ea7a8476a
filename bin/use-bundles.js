// @ts-check
// Loaded first by `bin/sightline.js` and, with `node --import`, by the test runner's processes:
// every `kysely` import after it resolves to the bundle (kysely-bundle.js says why).
import { kyselyBundle, resolveKyselyTo } from './kysely-bundle.js';

const files = await kyselyBundle();
if (files) resolveKyselyTo(files);
