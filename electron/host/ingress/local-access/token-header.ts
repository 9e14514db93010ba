// The HTTP header that carries the install's token, as a client's headers helper prints it: a
// client that runs `codemode token header` when it connects (Claude Code's `headersHelper`)
// gets the token from the 0600 token file, so it is in no command line of any process (other
// users can read every process's arguments) and in no config file of the client.
import { readToken } from "./token.js";

/** The header as one line of JSON, `{"Authorization":"Bearer <token>"}`. */
export async function tokenHeaderJson(dataDir: string): Promise<string> {
  return JSON.stringify({ Authorization: `Bearer ${await readToken(dataDir)}` });
}
