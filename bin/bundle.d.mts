/** Types of bin/bundle.mjs (plain JavaScript, so the CLI's launcher needs no compiler). */
export declare const ROOT: string;
export declare function bundle(entry: string, outfile: string, extraDirs?: readonly string[]): Promise<string>;
