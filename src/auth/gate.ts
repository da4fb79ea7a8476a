import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyForAuthentication } from '../db/api-keys.ts';
import type { Db } from '../db/connect.ts';
import type { Organization, Plan } from '../db/organizations.ts';
import { PLANS } from '../db/organizations.ts';
import type { Scope } from '../domain/scopes.ts';
import { NotAuthenticated, PermissionDenied, Throttled } from '../errors.ts';
import { cachedKeyLookup } from './key-cache.ts';
import { parseKey, secretMatches } from './keys.ts';
import type { LastUseRecorder } from './last-use.ts';
import type { RateLimitStore } from './rate-limit.ts';

/** What a route declares about who may call it (route `config`). */
export interface RouteAccess {
  /** The scope a key needs. Routes without one are not part of the keyed API. */
  scope?: Scope;
  /** The lowest plan allowed to call the route. */
  minimumPlan?: Plan;
  /** Answer without a key (used for the public demo brand's categories). */
  allowAnonymous?: (request: FastifyRequest) => boolean;
  /** Outside the keyed API entirely: documentation, health. */
  public?: boolean;
  /**
   * Authenticated and counted like the keyed API (401, then the add-on's 403, then the limit) but
   * neither scoped nor limited to GET: the MCP endpoint, which counts the rest of a request's
   * messages itself (`Caller.pay`), and whose tools make ordinary API requests.
   */
  keyOnly?: boolean;
}

export interface Caller {
  keyId: string;
  scopes: readonly Scope[];
  organization: Organization;
  /**
   * On a `keyOnly` route (MCP), whose request the gate counted once: spends `count` requests more
   * of the key's limit, throwing past it; `forApi` of the request's requests pay for the key's
   * next API requests that carry the returned token in `PAID_HEADER` (a tool call's, made
   * in-app), which are then not counted again. `end` voids what is left of it.
   */
  pay?: (count: number, forApi: number) => Promise<{ token: string; end: () => void }>;
}

/** The header an in-app API request carries the token of its prepaid `/mcp` message in. */
export const PAID_HEADER = 'x-sightline-paid';

export interface GateOptions {
  read: Db;
  pepper: string | undefined;
  rateLimit: RateLimitStore;
  rateLimitPerMinute: number;
  lastUse: LastUseRecorder;
}

const WINDOW_MS = 60_000;
// Areas the contract keeps away from keys whatever the method (rule 9).
const FORBIDDEN_AREAS = /^\/api\/+(v2|notifications?|billing|organizations?|orgs|forums?|social)(\/|$)/i;
// A path no route matched still answers as the keyed API would (401 before 403 before 404).
const API_AREA = /^\/api(\/|$)/i;

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key']);
const ONE_HEADER = 'Send the API key in exactly one header: Authorization or X-API-Key, once.';

/** The key the request carries, from the one header it may be in; a malformed header is a 401. */
export function presentedKey(request: FastifyRequest): string | undefined {
  // Node keeps the first of two Authorization headers and joins repeated X-API-Key values, so the
  // count comes from the headers as received.
  let credentials = 0;
  const raw = request.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    // An X-API-Key left empty presents nothing (below), so it is no second header either.
    if (CREDENTIAL_HEADERS.has(name) && !(name === 'x-api-key' && (raw[i + 1] as string).trim() === '')) {
      credentials++;
    }
  }
  if (credentials > 1) throw new NotAuthenticated(ONE_HEADER);
  const apiKey = request.headers['x-api-key'];
  // A header left empty (a client's unset variable) presents nothing: "not provided", not invalid.
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  const authorization = request.headers.authorization;
  if (authorization === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match)
    throw new NotAuthenticated('Invalid Authorization header. Use "Authorization: Bearer <API_KEY>".');
  return match[1];
}

/**
 * Decides, in the order decisions.md fixes, whether a request may proceed: authentication,
 * method, add-on, scope, plan, then the rate limit. The first failure answers.
 */
export function createGate(options: GateOptions) {
  const findKey = cachedKeyLookup(options.read);
  // The secret that last matched a key row, by the row the key cache holds: the next requests
  // with that row compare the secret byte for byte (in constant time) instead of hashing it again.
  // Both go when the row leaves the key cache, within KEY_CACHE_MS.
  const matched = new WeakMap<KeyForAuthentication, Buffer>();
  const matchesSecret = (key: KeyForAuthentication, secret: string): boolean => {
    const presented = Buffer.from(secret);
    const known = matched.get(key);
    if (known?.length === presented.length && timingSafeEqual(known, presented)) return true;
    if (!secretMatches(secret, key.secretHash, options.pepper)) return false;
    matched.set(key, presented);
    return true;
  };

  // Tokens of /mcp messages paid for, and how many API requests of their key each still covers.
  // A token is a random UUID that lives only while its /mcp request is answered.
  const paid = new Map<string, { keyId: string; left: number }>();

  async function spend(bucket: string, reply: FastifyReply, headers: boolean): Promise<void> {
    const decision = await options.rateLimit.hit(bucket, options.rateLimitPerMinute, WINDOW_MS, Date.now());
    if (headers) {
      reply.header('RateLimit-Policy', `"default";q=${options.rateLimitPerMinute};w=60`);
      reply.header('RateLimit', `"default";r=${decision.remaining};t=${decision.resetSeconds}`);
    }
    if (!decision.allowed) throw new Throttled(decision.resetSeconds);
  }

  return async function gate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // What the router matched decides: a keyed route is gated whatever its URL looked like on the
    // wire. The path (normalised before routing, http/canonical-url.ts) only places requests that
    // matched no route.
    const path = request.url.split('?')[0] ?? '';
    const access = (request.routeOptions.config as { access?: RouteAccess } | undefined)?.access;
    if (access?.public || (access?.scope === undefined && !access?.keyOnly && !API_AREA.test(path))) return;

    let raw: string | undefined;
    try {
      raw = presentedKey(request);
      // HEAD is answered wherever GET is (rule 1), the public demo's too.
      if (
        raw === undefined &&
        access?.allowAnonymous?.(request) &&
        (request.method === 'GET' || request.method === 'HEAD')
      ) {
        await spend(`ip:${request.ip}`, reply, false);
        return;
      }
      if (raw === undefined) throw new NotAuthenticated();
    } catch (error) {
      await spend(`ip:${request.ip}`, reply, false);
      throw error;
    }

    const parsed = parseKey(raw);
    const key = parsed ? await findKey(parsed.keyId) : undefined;
    const now = new Date().toISOString();
    const failure = !parsed
      ? 'Invalid API key.'
      : !key || !matchesSecret(key, parsed.secret)
        ? 'Invalid API key.'
        : key.revokedAt
          ? 'This API key has been revoked.'
          : key.expiresAt && key.expiresAt <= now
            ? 'This API key has expired.'
            : undefined;
    if (failure || !key) {
      await spend(`ip:${request.ip}`, reply, false);
      throw new NotAuthenticated(failure);
    }

    if (!access?.keyOnly && request.method !== 'GET' && request.method !== 'HEAD') {
      throw new PermissionDenied('API keys are read-only: only GET requests are allowed.');
    }
    if (FORBIDDEN_AREAS.test(path)) {
      throw new PermissionDenied('This endpoint is not available to API keys.');
    }
    if (!key.organization.apiAccess) {
      throw new PermissionDenied(
        'API access is a paid add-on that is not active for this organization. Enable it in billing settings.',
      );
    }
    const caller = { keyId: key.keyId, scopes: key.scopes, organization: key.organization };
    if (access?.keyOnly) {
      // Counted before its body is read: a body that is no JSON, or a GET, is a request too.
      await spend(`key:${key.keyId}`, reply, true);
      const pay = async (count: number, forApi: number) => {
        for (let i = 0; i < count; i++) await spend(`key:${key.keyId}`, reply, true);
        const token = randomUUID();
        paid.set(token, { keyId: key.keyId, left: forApi });
        return { token, end: () => paid.delete(token) };
      };
      // A protocol message is a use of the key, whether or not a tool call follows.
      options.lastUse.record(key, now);
      request.caller = { ...caller, pay };
      return;
    }
    if (access?.scope && !key.scopes.includes(access.scope)) {
      throw new PermissionDenied(`This API key lacks the required scope: ${access.scope}.`);
    }
    if (access?.minimumPlan && PLANS.indexOf(key.organization.plan) < PLANS.indexOf(access.minimumPlan)) {
      throw new PermissionDenied(
        `This endpoint requires the ${access.minimumPlan} plan or higher; the organization is on ${key.organization.plan}.`,
      );
    }
    const token = request.headers[PAID_HEADER];
    const credit = typeof token === 'string' ? paid.get(token) : undefined;
    if (credit?.keyId === key.keyId && credit.left > 0) credit.left--;
    else await spend(`key:${key.keyId}`, reply, true);
    options.lastUse.record(key, now);
    request.caller = caller;
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}
