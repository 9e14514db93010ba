// Tasks written the way models write code, with the mistakes they make in a direct call: a
// misspelt tool, an argument renamed, a string for a number, a missing argument, a value outside
// an enum. Each has its first run as a model writes it (with the mistake) and the run that
// works, against the typed API, and the same two in the dict form (`server__tool({...})`, for
// bench/workbench.ts); the classic side makes the same mistake once, reads its error, and goes
// on. The published servers of bench/context-economy.ts, over its generated files.
import path from "node:path";
import {
  csvRows,
  listedFiles,
  sizeOrder,
  type ClassicIO,
  type Task,
  type TaskFiles,
} from "./economy-task-kit.js";

const INITECH_BEST = `best = max(int(q) * float(p) for t in texts for _, c, _, q, p in (l.split(",") for l in t.strip().splitlines()[1:]) if c == "Initech")
print(f"{best:.2f}")`;

/** The first lines of each log: WARN lines among them, counted. */
const WARN_COUNT = `print(sum(l.split()[1:2] == ["WARN"] for t in texts for l in t.splitlines()))`;

function invoicesTask(files: TaskFiles): Task {
  const d = JSON.stringify(files.invoices);
  const typed = (tool: string) => `import asyncio
d = ${d}
listing = (await filesystem.list_directory(path=d))["content"]
names = [l[7:] for l in listing.splitlines() if l.startswith("[FILE] ")]
files = await asyncio.gather(*(filesystem.${tool}(path=f"{d}/{n}") for n in names))
texts = [f["content"] for f in files]
${INITECH_BEST}`;
  const dict = (tool: string) => `import asyncio, json
d = ${d}
listing = json.loads(await filesystem__list_directory({"path": d}))["content"]
names = [l[7:] for l in listing.splitlines() if l.startswith("[FILE] ")]
files = await asyncio.gather(*(filesystem__${tool}({"path": f"{d}/{n}"}) for n in names))
texts = [json.loads(f)["content"] for f in files]
${INITECH_BEST}`;
  return {
    name: "the largest Initech line over 50 invoices: a misspelt tool (filesystem)",
    classic: async ({ call, mistake }: ClassicIO) => {
      const listing = await call({
        server: "filesystem",
        tool: "list_directory",
        args: { path: files.invoices },
      });
      const names = listedFiles(listing);
      const first = path.join(files.invoices, names[0] ?? "");
      await mistake({ server: "filesystem", tool: "read_txt_file", args: { path: first } });
      let best = 0;
      for (const name of names) {
        const text = await call({
          server: "filesystem",
          tool: "read_text_file",
          args: { path: path.join(files.invoices, name) },
        });
        for (const [, customer, , qty, price] of csvRows(text)) {
          if (customer === "Initech") best = Math.max(best, Number(qty) * Number(price));
        }
      }
      return best.toFixed(2);
    },
    lookUp: ["filesystem.list_directory", "filesystem.read_text_file"],
    mistake: { kind: "misspelt tool", code: typed("read_txt_file") },
    code: typed("read_text_file"),
    dict: { mistake: dict("read_txt_file"), code: dict("read_text_file") },
  };
}

function analystsTask(files: TaskFiles): Task {
  const p = JSON.stringify(files.people);
  const answer = `analysts = {e["name"] for e in g["entities"] if "role: analyst" in e["observations"]}
print(",".join(sorted(r["from"] for r in g["relations"] if r["to"] == "Globex" and r["from"] in analysts)))`;
  const people = `rows = [l.split(",") for l in text.strip().splitlines()[1:]]
people = [{"name": n, "entityType": "person", "observations": [f"role: {r}"]} for n, _, r in rows]
firms = [{"name": c, "entityType": "company", "observations": []} for c in sorted({c for _, c, _ in rows})]
works_at = [{"from": n, "to": c, "relationType": "works_at"} for n, c, _ in rows]`;
  const typed = (
    argument: string,
  ) => `text = (await filesystem.read_text_file(path=${p}))["content"]
${people}
await memory.create_entities(entities=people + firms)
await memory.create_relations(${argument}=works_at)
g = await memory.read_graph()
${answer}`;
  const dict = (argument: string) => `import json
text = json.loads(await filesystem__read_text_file({"path": ${p}}))["content"]
${people}
await memory__create_entities({"entities": people + firms})
await memory__create_relations({"${argument}": works_at})
g = json.loads(await memory__read_graph({}))
${answer}`;
  return {
    name: "people.csv into memory, then Globex's analysts: an argument renamed (filesystem, memory)",
    classic: async ({ call, mistake }: ClassicIO) => {
      const rows = csvRows(
        await call({ server: "filesystem", tool: "read_text_file", args: { path: files.people } }),
      );
      const firms = [...new Set(rows.map(([, company]) => company))].sort();
      await call({
        server: "memory",
        tool: "create_entities",
        args: {
          entities: [
            ...rows.map(([name, , role]) => ({
              name,
              entityType: "person",
              observations: [`role: ${role}`],
            })),
            ...firms.map((name) => ({ name, entityType: "company", observations: [] })),
          ],
        },
      });
      const relations = rows.map(([name, company]) => ({
        from: name,
        to: company,
        relationType: "works_at",
      }));
      await mistake({ server: "memory", tool: "create_relations", args: { relation: relations } });
      await call({ server: "memory", tool: "create_relations", args: { relations } });
      const graph = JSON.parse(await call({ server: "memory", tool: "read_graph", args: {} })) as {
        entities: { name: string; observations: string[] }[];
        relations: { from: string; to: string }[];
      };
      const analysts = new Set(
        graph.entities.filter((e) => e.observations.includes("role: analyst")).map((e) => e.name),
      );
      return graph.relations
        .filter((r) => r.to === "Globex" && analysts.has(r.from))
        .map((r) => r.from)
        .sort()
        .join(",");
    },
    lookUp: [
      "filesystem.read_text_file",
      "memory.create_entities",
      "memory.create_relations",
      "memory.read_graph",
    ],
    mistake: { kind: "renamed argument", code: typed("relation") },
    code: typed("relations"),
    dict: { mistake: dict("relation"), code: dict("relations") },
  };
}

function warnTask(files: TaskFiles): Task {
  const d = JSON.stringify(files.logs);
  const typed = (head: string) => `import asyncio
d = ${d}
listing = (await filesystem.list_directory(path=d))["content"]
names = [l[7:] for l in listing.splitlines() if l.startswith("[FILE] ")]
files = await asyncio.gather(*(filesystem.read_text_file(path=f"{d}/{n}", head=${head}) for n in names))
texts = [f["content"] for f in files]
${WARN_COUNT}`;
  const dict = (head: string) => `import asyncio, json
d = ${d}
listing = json.loads(await filesystem__list_directory({"path": d}))["content"]
names = [l[7:] for l in listing.splitlines() if l.startswith("[FILE] ")]
files = await asyncio.gather(*(filesystem__read_text_file({"path": f"{d}/{n}", "head": ${head}}) for n in names))
texts = [json.loads(f)["content"] for f in files]
${WARN_COUNT}`;
  return {
    name: "WARN lines in the first 50 lines of 20 logs: a string for a number (filesystem)",
    classic: async ({ call, mistake }: ClassicIO) => {
      const names = listedFiles(
        await call({ server: "filesystem", tool: "list_directory", args: { path: files.logs } }),
      );
      const first = path.join(files.logs, names[0] ?? "");
      await mistake({
        server: "filesystem",
        tool: "read_text_file",
        args: { path: first, head: "50" },
      });
      let warn = 0;
      for (const name of names) {
        const text = await call({
          server: "filesystem",
          tool: "read_text_file",
          args: { path: path.join(files.logs, name), head: 50 },
        });
        warn += text.split("\n").filter((line) => line.split(" ")[1] === "WARN").length;
      }
      return String(warn);
    },
    lookUp: ["filesystem.list_directory", "filesystem.read_text_file"],
    mistake: { kind: "string for integer", code: typed('"50"') },
    code: typed("50"),
    dict: { mistake: dict('"50"'), code: dict("50") },
  };
}

function searchTask(files: TaskFiles): Task {
  const d = JSON.stringify(files.logs);
  const errors = `print(sum(l.split()[1:2] == ["ERROR"] for t in texts for l in t.splitlines()))`;
  const typed = (pattern: string) => `import asyncio
found = (await filesystem.search_files(path=${d}${pattern}))["content"].splitlines()
files = await asyncio.gather(*(filesystem.read_text_file(path=p) for p in found))
texts = [f["content"] for f in files]
${errors}`;
  const dict = (pattern: string) => `import asyncio, json
found = json.loads(await filesystem__search_files({"path": ${d}${pattern}}))["content"].splitlines()
files = await asyncio.gather(*(filesystem__read_text_file({"path": p}) for p in found))
texts = [json.loads(f)["content"] for f in files]
${errors}`;
  return {
    name: "ERROR lines of the logs search_files finds: a missing argument (filesystem)",
    classic: async ({ call, mistake }: ClassicIO) => {
      await mistake({ server: "filesystem", tool: "search_files", args: { path: files.logs } });
      const found = await call({
        server: "filesystem",
        tool: "search_files",
        args: { path: files.logs, pattern: "*.log" },
      });
      let count = 0;
      for (const file of found.split("\n").filter(Boolean)) {
        const text = await call({
          server: "filesystem",
          tool: "read_text_file",
          args: { path: file },
        });
        count += text.split("\n").filter((line) => line.split(" ")[1] === "ERROR").length;
      }
      return String(count);
    },
    lookUp: ["filesystem.search_files", "filesystem.read_text_file"],
    mistake: { kind: "missing argument", code: typed("") },
    code: typed(', pattern="*.log"'),
    dict: { mistake: dict(""), code: dict(', "pattern": "*.log"') },
  };
}

function largestTask(files: TaskFiles): Task {
  const d = JSON.stringify(files.invoices);
  const hooli = `total = sum(int(q) * float(p) for t in texts for _, c, _, q, p in (l.split(",") for l in t.strip().splitlines()[1:]) if c == "Hooli")
print(f"{total:.2f}")`;
  const typed = (sort: string) => `import asyncio
d = ${d}
listing = (await filesystem.list_directory_with_sizes(path=d, sortBy="${sort}"))["content"]
largest = [l[7:].split()[0] for l in listing.splitlines() if l.startswith("[FILE] ")][:10]
files = await asyncio.gather(*(filesystem.read_text_file(path=f"{d}/{n}") for n in largest))
texts = [f["content"] for f in files]
${hooli}`;
  const dict = (sort: string) => `import asyncio, json
d = ${d}
listing = json.loads(await filesystem__list_directory_with_sizes({"path": d, "sortBy": "${sort}"}))["content"]
largest = [l[7:].split()[0] for l in listing.splitlines() if l.startswith("[FILE] ")][:10]
files = await asyncio.gather(*(filesystem__read_text_file({"path": f"{d}/{n}"}) for n in largest))
texts = [json.loads(f)["content"] for f in files]
${hooli}`;
  return {
    name: "Hooli's total in the 10 largest invoices: a value outside an enum (filesystem)",
    classic: async ({ call, mistake }: ClassicIO) => {
      const args = { path: files.invoices };
      await mistake({
        server: "filesystem",
        tool: "list_directory_with_sizes",
        args: { ...args, sortBy: "largest" },
      });
      const listing = await call({
        server: "filesystem",
        tool: "list_directory_with_sizes",
        args: { ...args, sortBy: "size" },
      });
      let total = 0;
      for (const name of sizeOrder(listing).slice(0, 10)) {
        const text = await call({
          server: "filesystem",
          tool: "read_text_file",
          args: { path: path.join(files.invoices, name) },
        });
        for (const [, customer, , qty, price] of csvRows(text)) {
          if (customer === "Hooli") total += Number(qty) * Number(price);
        }
      }
      return total.toFixed(2);
    },
    lookUp: ["filesystem.list_directory_with_sizes", "filesystem.read_text_file"],
    mistake: { kind: "value outside an enum", code: typed("largest") },
    code: typed("size"),
    dict: { mistake: dict("largest"), code: dict("size") },
  };
}

/** The model-style tasks, one per kind of mistake. */
export function modelStyleTasks(files: TaskFiles): Task[] {
  return [
    invoicesTask(files),
    analystsTask(files),
    warnTask(files),
    searchTask(files),
    largestTask(files),
  ];
}
