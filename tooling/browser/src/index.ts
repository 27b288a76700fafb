export { type BrowserBundle, bundleForBrowser } from "./bundle.js";
export {
  browserRequired,
  browserSkipReason,
  CHROMIUM,
  type ChromiumSession,
  chromiumMissing,
  launchBrowser,
  launchChromium,
  PAGE_ORIGIN,
  type ServedFile,
} from "./chromium.js";
export { type PortablePackage, portablePackages, REPO_ROOT } from "./portable-packages.js";
