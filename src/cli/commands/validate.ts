/** `kanon validate`: the source state is valid (nothing is fetched or written). */
import { enabledProviders } from "../../providers/source.js";
import { hookWarnings } from "../../source/validate.js";
import { type GlobalFlags, type Io, out, warn } from "../context.js";
import { loadValidated } from "../pipeline.js";

export async function validateCommand(flags: GlobalFlags, io: Io): Promise<void> {
  const v = await loadValidated(flags, io, { checkAgent: false });
  // The provider code loads only for a home with git skills (the others have no refs to warn about).
  const { mutableRefWarnings } =
    enabledProviders(v.loaded.config, io.env).length > 0
      ? await import("../../providers/lock.js")
      : { mutableRefWarnings: () => [] };
  warn(io, [
    ...v.validation.warnings,
    ...mutableRefWarnings(v.loaded.config, v.lock, io.env),
    ...hookWarnings(v.validation.decisions, v.agents),
  ]);
  out(io, "kanon.yaml is valid.\n");
}
