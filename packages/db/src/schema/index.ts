export * from "./inbox.js";
export * from "./prekeys.js";
