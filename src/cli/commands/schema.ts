/**
 * `kanon schema`: the JSON Schema of kanon.yaml, for editors (yaml-language-server and others);
 * `--envelope`: that of the stdin a hook with envelope: neutral reads.
 */
import { AGENT_IDS } from "../../agents/index.js";
import { envelopeSchema, replySchema } from "../../core/hooks/envelope.js";
import { NEUTRAL_EVENTS } from "../../core/hooks/vocabulary.js";
import { configSchema } from "../../source/load.js";
import { toJsonSchema } from "../../source/schema.js";
import { type Io, out } from "../context.js";

export function schemaCommand(opts: { envelope?: boolean }, io: Io): void {
  const schema = opts.envelope
    ? {
        ...envelopeSchema(
          NEUTRAL_EVENTS.map((e) => e.name),
          AGENT_IDS,
        ),
        $defs: { reply: replySchema() },
      }
    : toJsonSchema(configSchema(AGENT_IDS));
  out(io, `${JSON.stringify(schema, null, 2)}\n`);
}
