export { ConfigError } from "@svc/node-kit";
export { type CreateAppOptions, createApp, type SvcApp } from "./app.js";
export { type Config, loadConfig } from "./config.js";
export { migrations } from "./migrations.js";
export { type RunningServer, startServer } from "./server.js";
