export { CompactRange } from "./compact-range.js";
export { MerkleError, type MerkleErrorCode } from "./errors.js";
export {
  assembleProof,
  consistencyProof,
  consistencyProofPlan,
  inclusionProof,
  inclusionProofPlan,
  proofPlanNodes,
} from "./log-proof.js";
export { verifyConsistency, verifyInclusion } from "./log-verify.js";
export { emptyMapRoot, MAP_DEPTH, mapKey } from "./map-hash.js";
export {
  type MapNodeCoord,
  mapNodeKey,
  mapNodePrefix,
  mapRowCoords,
} from "./map-path.js";
export { type MapProof, verifyMapProof } from "./map-proof.js";
export {
  type MapRow,
  type MapRows,
  mapProofFromRows,
  planMapUpdate,
} from "./map-rows.js";
export { MemoryTree } from "./memory-tree.js";
export { SparseMerkleMap } from "./sparse-merkle-map.js";
export {
  rootNodes,
  type SubtreeCoord,
  type SubtreeNode,
  subtreeKey,
} from "./subtree.js";
export { emptyRoot, leafHash, rootFromLeafHashes } from "./tree-hash.js";
