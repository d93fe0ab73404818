// The layer order of src/ (README, Development): each layer imports only from the layers before it.
// `npm test` runs `depcruise` with this file; a new folder under src/ must be placed here.
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

const names = (layer) => (Array.isArray(layer) ? layer : [layer]);
const under = (folders) => `^src/(${folders.join("|")})/`;

const layerRules = LAYERS.flatMap((layer, i) => {
  const above = LAYERS.slice(i + 1).flatMap(names);
  const rules = [];
  if (above.length > 0) {
    rules.push({
      name: `layer-${names(layer).join("-")}`,
      comment: `${names(layer).join(", ")} may import only from the layers below it: ${LAYERS.slice(0, i).flatMap(names).join(", ") || "none"}`,
      severity: "error",
      from: { path: under(names(layer)) },
      to: { path: under(above) },
    });
  }
  // Folders that share a layer (the two entry points) do not import each other.
  for (const a of names(layer))
    for (const b of names(layer))
      if (a !== b)
        rules.push({
          name: `layer-${a}-not-${b}`,
          severity: "error",
          from: { path: under([a]) },
          to: { path: under([b]) },
        });
  return rules;
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
      from: { path: "^src/", pathNot: under(LAYERS.flatMap(names)) },
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
