// What the operator command groups (brands, categories, prompts, competitors, runs) share: option
// parsers built on the catalog rules (a bad value is a usage error, exit 2), and opening the
// organization named by --org.
import { InvalidArgumentError } from 'commander';
import { type OrganizationRef, requireOrganization } from '../db/catalog/refs.ts';
import type { ConnectOptions, Db } from '../db/connect.ts';
import {
  InvalidInput,
  parseRef,
  splitList,
  validAliases,
  validExternalKey,
  validWebsite,
} from '../domain/catalog.ts';
import { withDatabase } from './commands/support.ts';
import { UsageError } from './errors.ts';

/** Turns a catalog rule into a commander option parser. */
function parser<T>(rule: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return rule(value);
    } catch (error) {
      if (error instanceof InvalidInput) throw new InvalidArgumentError(`${error.message}.`);
      throw error;
    }
  };
}

export const parseRefOption = parser(parseRef);
export const parseWebsiteOption = parser(validWebsite);
export const parseKeyOption = parser(validExternalKey);
export const parseListOption = parser((value: string) => validAliases(splitList(value)));

/** A parser of a whole number from 1 to `most` (at most four digits). */
const wholeNumberUpTo = (most: number) => (value: string) => {
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > most)
    throw new InvalidArgumentError(`expected a whole number from 1 to ${most}.`);
  return Number(value);
};

/** --concurrency: as SIGHTLINE_WORKER_CONCURRENCY, at most 1,000 (the primary pool holds that many + 2). */
export const parseConcurrency = wholeNumberUpTo(1000);

export const parseLimit = wholeNumberUpTo(9999);

/**
 * Runs `fn` with the database and the organization of --org. A value the catalog rules refuse is
 * a usage error (exit 2); anything else that fails is a failure (exit 1).
 */
export function withOrganization<T>(
  slug: string,
  fn: (db: Db, org: OrganizationRef) => Promise<T>,
  options: ConnectOptions = {},
): Promise<T> {
  return withDatabase(async (db) => {
    try {
      return await fn(db, await requireOrganization(db, slug));
    } catch (error) {
      if (error instanceof InvalidInput) throw new UsageError(error.message);
      throw error;
    }
  }, options);
}
