# visibility-sync: one image for the worker, the one-off sync and the simulator.
FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# Dev tools are not needed at run time; tsx (a runtime dependency) runs the TypeScript sources.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY jobs ./jobs
COPY config ./config
COPY tsconfig.json ./
USER node
ENTRYPOINT ["node", "bin/visync.js"]
CMD ["--help"]
