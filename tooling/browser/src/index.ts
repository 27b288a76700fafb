export { type BrowserBundle, bundleForBrowser } from "./bundle.js";
export {
  browserRequired,
  CHROMIUM,
  type ChromiumSession,
  chromiumMissing,
  launchChromium,
  PAGE_ORIGIN,
  type ServedFile,
} from "./chromium.js";
export { type PortablePackage, portablePackages, REPO_ROOT } from "./portable-packages.js";
