# syntax=docker/dockerfile:1
# toolgate container. Build stage: `npm ci` (nothing to compile), `npm run build` (tsc → dist/),
# `npm prune --omit=dev`, then the optional backends the image supports (BACKEND_PACKAGES). Runtime
# stage: Node on Debian slim with ripgrep and bubblewrap, a non-root user, data in the /data volume.
# test/system/bundle.test.ts runs the same build steps and start command.
# The newest LTS line. On Node 22 and later toolgate loads better-sqlite3 13 (N-API, prebuilt in its
# package; see src/store/sqlite-driver.ts), so the build stage needs no compiler: better-sqlite3 12, the
# Node 20 driver, is an optional dependency whose build may fail here without failing npm ci.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# What the image supports: the default features (the bwrap and unisolated runtimes, SQLite, every tool but
# the language servers' answers), plus the optional backends whose npm packages are named here, from
# package.json's optional peerDependencies (docs/operations.md, "Optional backends"). The default, pg,
# serves the PostgreSQL setups (docker-compose.yml's replicas profile, deploy/kubernetes/replicas). Add
# @kubernetes/client-node for the kubernetes backend (deploy/kubernetes), "pyright
# typescript-language-server typescript" for the language servers behind the code tools, dockerode for
# the docker backend (which needs the engine's socket mounted). A backend chosen without its package
# stops the start with one line naming the package.
ARG BACKEND_PACKAGES="pg"
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The build writes the runtime bundle once (dist/src/runtime/runtime.cjs, src/runtime/bundle.ts), so the
# image never bundles: esbuild, tsx and TypeScript are development dependencies, and the prune removes
# them with the other development tools and the optional backends' packages.
RUN npm run build && npm prune --omit=dev
COPY docker/install-backends.sh ./docker/
RUN sh docker/install-backends.sh ${BACKEND_PACKAGES} && rm -r docker
# What the runtime never loads: better-sqlite3 13's prebuilt binaries for the other platforms and its
# SQLite sources (it loads prebuilds/<platform>-<arch>.node, N-API), and on Node 22 and later
# better-sqlite3 12, the Node 20 driver (src/store/sqlite-driver.ts), with its sources and build tree.
RUN cd node_modules/better-sqlite3-napi \
 && keep="$(node -p 'process.platform + "-" + process.arch').node" \
 && test -f "prebuilds/$keep" \
 && find prebuilds -name '*.node' ! -name "$keep" -delete \
 && rm -rf deps src binding.gyp \
 && cd /app \
 && if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then rm -rf node_modules/better-sqlite3; fi

FROM ${NODE_IMAGE} AS runtime
# Toolchains for the sessions' commands with the bwrap backend (they see this image's system):
# `--build-arg EXTRA_PACKAGES="python3 python3-venv"` adds Debian packages (README "Toolchains").
ARG EXTRA_PACKAGES=""
# ripgrep: grep/search tools; bubblewrap: the command sandbox; git: agents expect it in a coding
# workspace; tini: reaps the processes commands leave behind and forwards signals to node.
# apt-get clean: the downloaded .debs stay in the layer where the base lacks Debian's docker-clean config.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ripgrep bubblewrap git tini ca-certificates ${EXTRA_PACKAGES} \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
RUN groupadd --system --gid 10001 toolgate \
 && useradd --system --uid 10001 --gid toolgate --home-dir /data --shell /usr/sbin/nologin toolgate \
 && mkdir -p /data \
 && chown toolgate:toolgate /data
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The operator console's static files (served at /console; uPlot comes from node_modules).
COPY console ./console
# The shipped eval datasets (POST /v1/evals runs them by name).
COPY evals ./evals
COPY --chmod=0755 docker/entrypoint.sh /usr/local/bin/toolgate-entrypoint
COPY docker/config.example.json /etc/toolgate/config.example.json

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    TOOLGATE_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
USER toolgate
# Slim images have no curl; Node 22's fetch does the probe.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Must exceed shutdown.graceSeconds + 5 s so in-flight calls can finish (docker stop -t / stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/toolgate-entrypoint"]
CMD ["node", "dist/src/server.js"]
