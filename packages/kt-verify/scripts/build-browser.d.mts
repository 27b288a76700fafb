/** Path of the browser bundle. */
export declare const BROWSER_BUNDLE: string;
/** Builds dist/kt-verify.browser.js and returns its path. */
export declare function buildBrowserBundle(): Promise<string>;
