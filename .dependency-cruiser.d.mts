/** Types of .dependency-cruiser.mjs for the test that compares its layers with the README. */
export declare const LAYERS: (string | string[])[];
declare const config: unknown;
export default config;
