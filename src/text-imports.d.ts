/** `import text from "./file?raw"`: the file's text (Vite's convention; scripts/esbuild-text.mjs for the bundle). */
declare module "*?raw" {
  const text: string;
  export default text;
}
