# syntax=docker/dockerfile:1
# One image, two entry points: `serve` (the gateway) and `operator`, plus the static agw-bridge
# binary (issue 40). Multi-stage: TypeScript is compiled in the build stage, the bridge in a Go
# stage; the runtime stage holds only Node 24, the compiled code, the production dependencies and
# /usr/local/bin/agw-bridge, runs as uid 65532, and needs nothing writable but /tmp and the data
# directory (the Helm chart mounts both as emptyDir; the root filesystem can be read-only).
# Built here without a daemon by image/build.sh (same layout); with Docker: docker build -t agent-gateway .
ARG NODE_VERSION=24
FROM docker.io/library/node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: no production dependency needs one, and the `node` devDependency's script would
# download a second Node.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY gateway ./gateway
COPY operator ./operator
COPY examples ./examples
COPY test/bench ./test/bench
COPY test/fixtures ./test/fixtures
COPY test/infra ./test/infra
# The workspace console's static files (docs/console.md), served only when server.console.enabled.
COPY console ./console
RUN npx tsc -p tsconfig.build.json \
 && npx tsc -p console/tsconfig.json \
 && cp console/static/index.html console/static/console.css dist/console/ \
 && npm prune --omit=dev --ignore-scripts \
 && mkdir -p /out/app/dist /out/data \
 && cp -r package.json bin node_modules /out/app/ \
 && cp -r dist/gateway dist/operator dist/examples dist/console /out/app/dist/

# agw-bridge (issue 40): static, stdlib only; an init container copies it out of this image
# (`agw-bridge --install /agw/bridge`) in front of stdio MCP servers the operator runs.
FROM docker.io/library/golang:1.26-bookworm AS bridge
WORKDIR /src
COPY image/bridge/go.mod image/bridge/*.go ./
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/agw-bridge .

FROM gcr.io/distroless/cc-debian12:nonroot AS runtime
COPY --from=bridge /out/agw-bridge /usr/local/bin/agw-bridge
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /out/app /app
COPY --from=build --chown=65532:65532 /out/data /var/lib/agent-gateway
WORKDIR /app
USER 65532:65532
ENV NODE_ENV=production
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/node", "/app/bin/agent-gateway.js"]
CMD ["serve", "--kubernetes"]
