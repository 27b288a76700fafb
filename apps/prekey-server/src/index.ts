export { ConfigError } from "@svc/http";
export { type CreateAppOptions, createApp, type SvcApp } from "./app.js";
export { type Config, loadConfig } from "./config.js";
export { migrations } from "./migrations.js";
export { type RunningServer, startServer } from "./server.js";
