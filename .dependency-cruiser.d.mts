/** Types of .dependency-cruiser.mjs for the test that compares its layers with the README and the code. */
export declare const LAYERS: (string | string[])[];
export declare const IMPORTS: Record<string, string[]>;
declare const config: unknown;
export default config;
