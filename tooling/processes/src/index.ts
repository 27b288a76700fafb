export { freePort } from "./free-port.js";
export { canPin, spawnPinnedNode } from "./pinned-spawn.js";
export {
  type Closer,
  type Exit,
  type SpawnedProcess,
  type SpawnOptions,
  spawnNode,
  spawnProcess,
} from "./spawn.js";
