// Whether the run_python description lists a tool, in either of its forms: the tool's stub
// (`async def toy.add(`) while the catalog's stubs fit, else the tool's name on its server's line
// of the index (`- toy (3 tools): add, echo, send`, or `- "my-server" as my_server (...)`).

const PRIVATE_TAIL = " [private]";

function indexNames(line: string, namespace: string): string[] {
  const own = line.startsWith(`- ${namespace} (`);
  const renamed = line.startsWith('- "') && line.includes(`" as ${namespace} (`);
  if (!own && !renamed) return [];
  const colon = line.indexOf("): ");
  if (colon < 0) return [];
  return line
    .slice(colon + 3)
    .split(", ")
    .map((name) => {
      const more = name.indexOf(" +");
      const bare = more < 0 ? name : name.slice(0, more);
      return bare.endsWith(PRIVATE_TAIL) ? bare.slice(0, -PRIVATE_TAIL.length) : bare;
    });
}

/** True when `description` shows `namespace.method` as a stub or in the index. */
export function listsTool(description: string, namespace: string, method: string): boolean {
  if (description.includes(`async def ${namespace}.${method}(`)) return true;
  return description.split("\n").some((line) => indexNames(line, namespace).includes(method));
}
