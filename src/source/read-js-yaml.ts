/**
 * kanon.yaml read by js-yaml, for the documents simple-yaml.ts leaves (anchors, block scalars…). It
 * loads with its first use: js-yaml builds all its schemas when it loads.
 */
import * as jsYaml from "js-yaml";
import { MAX_NESTING, MAX_VALUES } from "./limits.js";
import { BAIL } from "./simple-yaml.js";

// The core schema (no timestamps or binary) plus merge keys (`<<`), which Go's yaml.v3 also reads.
// (`types` is exported at run time but missing from the type definitions.)
const { merge } = (jsYaml as unknown as { types: { merge: jsYaml.Type } }).types;
// (As `implicit`: a plain array would add it as an explicit tag, and `<<` would stay an ordinary key.)
const YAML_SCHEMA = jsYaml.CORE_SCHEMA.extend({ implicit: [merge] });

/** The document's value, or BAIL when js-yaml cannot read it or it passes a limit. */
export function readJsYaml(text: string): unknown {
  // Past the nesting or size limit, stop reading: the positional decoder reports it (a hostile
  // megabyte would otherwise be read in full twice).
  let depth = 0;
  let values = 0;
  const listener = (event: string) => {
    if (event === "close") depth--;
    else if (++depth > MAX_NESTING || ++values > MAX_VALUES) throw BAIL;
  };
  try {
    return jsYaml.load(text, { schema: YAML_SCHEMA, listener });
  } catch {
    return BAIL;
  }
}
