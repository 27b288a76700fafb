export { HASH_SIZE } from "./assert.js";
export { concatBytes, equalBytes, u64be } from "./bytes.js";
export { CompactRange } from "./compact-range.js";
export { MerkleError, type MerkleErrorCode } from "./errors.js";
export {
  assembleProof,
  consistencyProof,
  consistencyProofPlan,
  inclusionProof,
  inclusionProofPlan,
  type ProofPlan,
  proofPlanNodes,
} from "./log-proof.js";
export { verifyConsistency, verifyInclusion } from "./log-verify.js";
export {
  EMPTY_MAP_NODE,
  emptyMapRoot,
  MAP_DEPTH,
  mapKey,
  mapLeafHash,
  mapNodeHash,
} from "./map-hash.js";
export {
  type MapNodeCoord,
  mapNodeKey,
  mapNodePrefix,
  mapRowCoords,
} from "./map-path.js";
export {
  decodeMapProof,
  encodeMapProof,
  type MapEntry,
  type MapProof,
  verifyMapProof,
} from "./map-proof.js";
export {
  type MapRow,
  type MapRows,
  mapProofFromRows,
  planMapUpdate,
} from "./map-rows.js";
export { MemoryTree } from "./memory-tree.js";
export { SparseMerkleMap } from "./sparse-merkle-map.js";
export {
  rootFromNodes,
  rootNodes,
  type SubtreeCoord,
  type SubtreeNode,
  type SubtreeSource,
  subtreeKey,
} from "./subtree.js";
export { emptyRoot, leafHash, nodeHash, rootFromLeafHashes } from "./tree-hash.js";
