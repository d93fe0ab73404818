// The folders of src/ (docs/development.md), bottom up, and for each the folders it imports from:
// the code's real dependencies, not just an order, so a new import between folders that did not
// depend on each other fails until it is written here. Only folders listed before a folder may be
// named (no upward import). `npm test` runs `depcruise` with this file; a new folder under src/ must
// be placed here. Folders in one entry (the two entry points) do not import each other.
export const LAYERS = [
  "model",
  // Kept to Node's built-ins and model: the standalone hook runner carries it.
  "continuity",
  "formats",
  "core",
  "runner",
  "agents",
  "providers",
  "source",
  "destination",
  "import",
  ["cli", "docs"],
];

export const IMPORTS = {
  model: [],
  continuity: ["model"],
  formats: ["model"],
  core: ["model", "continuity", "formats"],
  runner: ["model", "continuity", "core"],
  agents: ["model", "formats", "core"],
  providers: ["model", "core"],
  source: ["model", "continuity", "formats", "core", "providers"],
  destination: ["model", "formats", "core"],
  import: ["model", "formats", "core", "agents", "providers", "source", "destination"],
  cli: ["model", "continuity", "core", "runner", "agents", "providers", "source", "destination", "import"],
  docs: ["model", "core", "agents"],
};

const names = (layer) => (Array.isArray(layer) ? layer : [layer]);
const under = (folders) => `^src/(${folders.join("|")})/`;
const folders = LAYERS.flatMap(names);

const layerRules = LAYERS.flatMap((layer, i) => {
  const below = LAYERS.slice(0, i).flatMap(names);
  return names(layer).map((folder) => {
    const allowed = IMPORTS[folder];
    if (!allowed) throw new Error(`.dependency-cruiser.mjs: IMPORTS has no entry for src/${folder}/`);
    for (const b of allowed)
      if (!below.includes(b))
        throw new Error(
          `.dependency-cruiser.mjs: src/${folder}/ may not import src/${b}/, a layer at or above it`,
        );
    const others = folders.filter((f) => f !== folder && !allowed.includes(f));
    return {
      name: `imports-of-${folder}`,
      comment: `src/${folder}/ imports only from ${allowed.map((a) => `src/${a}/`).join(", ") || "no other folder"}`,
      severity: "error",
      from: { path: under([folder]) },
      to: { path: under(others) },
    };
  });
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      comment: "No file-level import cycles in src/ (type-only imports count too).",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "known-layer",
      comment: "Every folder under src/ belongs to a layer of LAYERS.",
      severity: "error",
      from: { path: "^src/", pathNot: under(folders) },
      to: {},
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
