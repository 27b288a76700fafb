export { type CreateAppOptions, createApp, type SvcApp } from "./app.js";
export { type Config, ConfigError, loadConfig } from "./config.js";
export { type RunningServer, startServer } from "./server.js";
