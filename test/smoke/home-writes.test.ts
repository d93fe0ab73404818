/**
 * kanon's writes in a fresh HOME through the built `dist/kanon.js` (test/support/home-writes.ts;
 * issue 38): the executable itself writes nothing either, such as a cache of its compiled code.
 */
import { homeWritesSuite } from "../support/home-writes.js";

homeWritesSuite((s, args) => s.spawn(args));
