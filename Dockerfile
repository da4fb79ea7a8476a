# Sightline API image: Node 24 slim, production dependencies only, running as the unprivileged
# `node` user. TypeScript runs directly on Node 24 (type stripping), so there is no build step.
# The package scripts use the `node` dev dependency, which is not installed here: the image runs
# its own Node directly, through the package's bin as `npx sightline` does.

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# No install scripts: no production dependency needs one, and none should run in the image build.
# The same `npm ci` as scripts/ensure-deps.mjs, with .npmrc's settings, less the dev dependencies.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
# Kysely and TypeBox as one bundle (docs/decisions.md, "Kysely and TypeBox bundled at start"), built
# here because node_modules is read-only for the service user, who could not build it at its first
# start. The image fails to build if the bundle did not come out whole.
COPY bin ./bin
RUN node bin/use-bundles.js && ls node_modules/.cache/sightline/*/files.json

FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    METRICS_PORT=9464
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root bin ./bin
COPY --chown=root:root src ./src
# The code is read-only for the service user; only the embedded database's directory (used when
# DATABASE_URL is left at its sqlite: default) is writable. `sightline` is on the path for the
# operator's commands (`docker compose run --rm api sightline …`): `npx sightline` cannot run here,
# since npx links the package's bin into its cache and makes it executable, which the service user
# may not do to files it does not own.
RUN mkdir -p /app/data && chown node:node /app/data && ln -s /app/bin/sightline.js /usr/local/bin/sightline
USER node
EXPOSE 8000 9464
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/sightline.js", "serve"]
