/** `kanon schema`: the JSON Schema of kanon.yaml, for editors (yaml-language-server and others). */
import { AGENT_IDS } from "../../agents/index.js";
import { configSchema } from "../../source/load.js";
import { toJsonSchema } from "../../source/schema.js";
import { type Io, out } from "../context.js";

export function schemaCommand(io: Io): void {
  out(io, `${JSON.stringify(toJsonSchema(configSchema(AGENT_IDS)), null, 2)}\n`);
}
