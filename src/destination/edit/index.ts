export { type CoOwnedPlan, planCoOwned } from "./co-owned.js";
export { mergeCoOwned } from "./merge.js";
