export { ConfigError } from "@svc/node-kit";
export { migrations } from "@svc/server-schema";
export { type CreateAppOptions, createApp, type SvcApp } from "./app.js";
export { type Config, loadConfig } from "./config.js";
export { type RunningServer, startServer } from "./server.js";
