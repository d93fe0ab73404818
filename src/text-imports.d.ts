/** `import text from "./file?raw"`: the file's text (Vite's convention; scripts/esbuild-text.mjs for the bundle). */
declare module "*?raw" {
  const text: string;
  export default text;
}

/** `import text from "./entry.ts?bundle"`: the module bundled into one script (scripts/esbuild-text.mjs). */
declare module "*?bundle" {
  const text: string;
  export default text;
}
