// The words that ask `codemode` for the HTTP token's header (`codemode token header`): the
// Clients page's snippets name them, the CLI and the shim answer them.

/** The words after the program that ask for it (`codemode token header`). */
export const TOKEN_HEADER_ARGS = ["token", "header"] as const;

export function asksForTokenHeader(argv: readonly string[]): boolean {
  return (
    argv.length === TOKEN_HEADER_ARGS.length && TOKEN_HEADER_ARGS.every((w, i) => argv[i] === w)
  );
}
