/** Path of the bundled ESM verifier for browsers (dist/kt-verify.browser.js). */
export declare const BROWSER_BUNDLE: string;
/** Builds the browser bundle with esbuild and returns its path. */
export declare function buildBrowserBundle(): Promise<string>;
