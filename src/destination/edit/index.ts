export { mergeCoOwned } from "./merge.js";
