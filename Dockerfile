# The service image: API and workers are the same program (`commerce serve`, `commerce worker …`).
# Stage 1 installs every dependency, runs `npm run build` (dist/: the service compiled to
# JavaScript, the SDK and hosted page scripts) and drops the dev dependencies; stage 2 holds only
# what runs: dist/, bin/, package files and production node_modules (no test/, bench/, sources or
# compilers).
FROM node:22-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds from source where no prebuilt binary fits this platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/data
COPY --from=build /app/package.json /app/package-lock.json ./
# Built in stage 1 on the same base image, so better-sqlite3's native module fits.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# `node bin/commerce.js …` (docker-compose.yml, `docker exec … commerce`) runs dist/ here: no tsx.
COPY --from=build /app/bin ./bin
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
CMD ["node", "--enable-source-maps", "dist/commerce.js", "serve"]
