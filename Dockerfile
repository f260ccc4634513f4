# syntax=docker/dockerfile:1
# visibility-sync: one image for the worker, the one-off commands (run --once, enqueue, status,
# doctor, replay, report) and the simulator. The build stage compiles the TypeScript to dist/; the
# runtime stage holds only production dependencies, the compiled JavaScript, and Chromium with
# fonts for the PDF reports.
#
#   docker build -t visibility-sync:0.3.0 --build-arg VERSION=0.3.0 .
#   docker run --rm -e VISYNC_CONFIG=/app/config/visync.yaml -v "$PWD/config:/app/config:ro" \
#     visibility-sync:0.3.0 worker
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
ARG VERSION=0.3.0
ARG REVISION=unknown
# The repository's public address, e.g. --build-arg SOURCE=https://github.com/OWNER/visibility-sync
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="visibility-sync" \
      org.opencontainers.image.description="Nightly, rate-aware sync of AI-visibility data into S3/fs and BigQuery" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"

# The fonts PDF reports print with (Chromium uses the image's fonts, nothing is downloaded):
# Liberation (metric-compatible with Arial, Times New Roman and Courier New), Noto for most
# scripts (Latin, Greek, Cyrillic, Arabic, Hebrew, Devanagari, Thai, ...), Noto CJK (Chinese,
# Japanese, Korean: about 90 MB of the about 150 MB these four add) and Noto Color Emoji. No client
# or brand names in Chinese, Japanese or Korean: --build-arg REPORT_FONTS="fonts-liberation
# fonts-noto-core" (a glyph the image lacks prints as an empty box). docs/deploying.md, "Reports".
ARG REPORT_FONTS="fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji"

# tini as PID 1: it forwards SIGTERM to node (a worker then finishes its active jobs within
# shutdownGraceSeconds) and reaps zombies, so plain `docker run` and `docker stop` behave.
# chromium: Debian's browser at /usr/bin/chromium (the default of the config's
# reports.chromiumPath) prints the PDF reports; in every image, since the config decides
# (formats: [pdf]) and a running worker reloads it. Not pinned: Debian's security updates replace
# it, and an old browser is what they fix. Without recommends: no setuid sandbox helper (visync
# starts it with --no-sandbox: the container is the boundary, docs/production.md).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 chromium ${REPORT_FONTS} \
 && rm -rf /var/lib/apt/lists/*
# Chromium's crash-report database ($XDG_CONFIG_HOME/chromium) and caches go to /tmp, the one
# writable place under a read-only root file system (an emptyDir or tmpfs there); its profile is a
# temporary directory under TMPDIR (/tmp), removed when the browser closes.
ENV XDG_CONFIG_HOME=/tmp/.config \
    XDG_CACHE_HOME=/tmp/.cache

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
