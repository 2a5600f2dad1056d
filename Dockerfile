# The service image: API and workers are the same program (`commerce serve`, `commerce worker …`).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 builds from source where no prebuilt binary fits this platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/data
COPY --from=deps /app/node_modules ./node_modules
COPY . .
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
CMD ["node", "bin/commerce.js", "serve"]
