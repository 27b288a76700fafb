export {
  LICENSE,
  libraryPackages,
  manifestProblems,
  type PackageManifest,
  publishablePackages,
  REPO_ROOT,
  releaseProblems,
  type WorkspacePackage,
  withoutSource,
} from "./publishable.js";
export { type ReadmeExample, type Runtime, readmeExamples } from "./readme-examples.js";
