/** kanon's writes in a fresh HOME, in-process (test/support/home-writes.ts; issue 38). */
import { homeWritesSuite } from "../support/home-writes.js";

homeWritesSuite((s, args) => s.run(args));
