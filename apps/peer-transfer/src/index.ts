export { loadTransferConfig } from "./config.js";
