# The Tollgate worker and gateway (one image; compose picks the command). Both run the compiled code in dist/, built
# in a stage of its own; the workflow bundle is built into the image, where the worker finds it.
#
#   docker build -t tollgate .
#   docker run --env TEMPORAL_ADDRESS=... tollgate                                  # the worker
#   docker run --env TEMPORAL_ADDRESS=... tollgate node dist/gateway/main.js

# Node 22, as ai@7 declares; the code also runs on Node 20.19+ (see README, "Node.js").
ARG NODE_IMAGE=node:22.22.0-bookworm-slim

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only, exactly as locked; the lockfile carries every platform's native builds.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# bubblewrap confines the bash tool: its own user, process and mount namespaces, only the workspace writable, so an
# approved command never reads the worker's environment or memory (docs/tool-sandbox.md). bwrap needs user
# namespaces, which Docker's default seccomp profile and /proc masks forbid: compose's worker lifts them.
# With the tool network on, commands get a network namespace of their own whose only way out is slirp4netns (outbound,
# never this container, Temporal or the gateway): it needs iproute2 for its routes and /dev/net/tun (compose gives it).
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap slirp4netns iproute2 \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY --from=build /app/dist ./dist
# The workflow bundle, made once here in the state folder the worker reads (.tollgate under /app; see
# src/workflow-bundle-cache.ts): a container starts without bundling, 8-10 s of CPU at every start of every replica.
RUN node -e "require('./dist/workflow-bundle-cache').cachedWorkflowBundle('.tollgate', console.log)"
# Folders the compose volumes mount; a fresh named volume takes this ownership.
RUN mkdir -p /workspace /store /data /keys/private /keys/public \
  && chown node:node /workspace /store /data /keys/private /keys/public && chmod 700 /keys/private
USER node
# The sandbox is required: a worker that cannot build it stops at start-up with bwrap's reason, never runs bash bare.
ENV TOLLGATE_WORKSPACE=/workspace TOLLGATE_STORE_DIR=/store TOLLGATE_TOOL_SANDBOX=bubblewrap
CMD ["node", "dist/worker.js"]
