# syntax=docker/dockerfile:1
# visibility-sync: one image for the worker, the one-off commands (run --once, enqueue, status,
# doctor, replay) and the simulator. The build stage compiles the TypeScript to dist/; the
# runtime stage holds only production dependencies and the compiled JavaScript.
#
#   docker build -t visibility-sync:0.1.0 --build-arg VERSION=0.1.0 .
#   docker run --rm -e VISYNC_CONFIG=/app/config/visync.yaml -v "$PWD/config:/app/config:ro" \
#     visibility-sync:0.1.0 worker
#
# Node 22 LTS, pinned to a release so a rebuild does not change the runtime under us; bump it
# (and the tini line below) deliberately.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own prepare script compiles, and the sources are not here yet
# (copied after the install so that a source change keeps this layer cached). The dependencies'
# install scripts only build or check native binaries that their platform packages ship prebuilt.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
COPY jobs ./jobs
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# Kept equal to package.json's version (test/docker-files.test.ts checks it); CI passes the tag.
ARG VERSION=0.1.0
ARG REVISION=unknown
# The repository's public address, e.g. --build-arg SOURCE=https://github.com/OWNER/visibility-sync
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="visibility-sync" \
      org.opencontainers.image.description="Nightly, rate-aware sync of AI-visibility data into S3/fs and BigQuery" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"

# tini as PID 1: it forwards SIGTERM to node (a worker then finishes its active jobs within
# shutdownGraceSeconds) and reaps zombies, so plain `docker run` and `docker stop` behave.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# --ignore-scripts: prepare would compile again, with dev tools this stage leaves out.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
# The fs sink's default directory (./data): writable by the runtime user, mount a volume here.
RUN mkdir -p /app/data && chown 1000:1000 /app/data

# The image's `node` user, by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000

# The worker serves /healthz on worker.listen (default 127.0.0.1:9464; loopback is enough for this
# check). Slim images have no curl, so node asks. Containers running other commands (run --once,
# enqueue, the simulator) have no endpoint: start them with --no-healthcheck, or in compose
# `healthcheck: { disable: true }`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/visync.js"]
CMD ["--help"]
