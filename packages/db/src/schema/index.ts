export * from "./bridges.js";
export * from "./inbox.js";
export * from "./kt.js";
export * from "./prekeys.js";
