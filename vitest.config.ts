import { defineConfig } from "vitest/config";
import { bundleText } from "./scripts/esbuild-text.mjs";

export default defineConfig({
  plugins: [
    {
      // `import text from "./entry.ts?bundle"`: as in the build (scripts/esbuild-text.mjs).
      name: "bundle-text",
      async load(id) {
        if (!id.endsWith("?bundle")) return null;
        return `export default ${JSON.stringify(await bundleText(id.slice(0, -"?bundle".length)))};`;
      },
    },
  ],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    pool: "forks",
  },
});
