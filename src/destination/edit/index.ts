export { type CoOwnedPlan, holdsNothing, planCoOwned } from "./co-owned.js";
export { mergeCoOwned } from "./merge.js";
