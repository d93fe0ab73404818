/** Types of esbuild-text.mjs for vitest.config.ts. */
export function bundleText(path: string): Promise<string>;
export const rawText: import("esbuild").Plugin;
