// The fixed task set of bench/context-economy.ts: generated files, and for each task the calls
// a model makes with classic tool calling (one at a time, each next call chosen from what the
// previous ones returned) and the Python a model sends to Code Mode for the same answer.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { modelStyleTasks } from "./model-style-tasks.js";
import {
  COMPANIES,
  csvRows,
  CUSTOMERS,
  lastNumber,
  listedFiles,
  SERVICES,
  sizeTop,
  type Task,
  type TaskFiles,
} from "./economy-task-kit.js";

export type { ClassicCall, ClassicIO, Task } from "./economy-task-kit.js";

/** A fixed pseudo-random sequence: the same files on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/**
 * 50 invoice CSVs (80 to 140 rows, some 4 KB each: about 200 KB in all), 20 service logs (100
 * lines, some 8 KB each) and a list of 40 people under `root`.
 */
export function writeTaskFiles(root: string): TaskFiles {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const invoices = path.join(root, "invoices");
  const logs = path.join(root, "logs");
  mkdirSync(invoices, { recursive: true });
  mkdirSync(logs, { recursive: true });
  for (let i = 1; i <= 50; i++) {
    const lines = ["date,customer,item,qty,unit_price"];
    const rows = 80 + Math.floor(next() * 60);
    for (let r = 0; r < rows; r++) {
      const day = String(1 + Math.floor(next() * 28)).padStart(2, "0");
      const qty = 1 + Math.floor(next() * 9);
      const price = (5 + Math.floor(next() * 9_500) / 100).toFixed(2);
      lines.push(
        `2026-11-${day},${pick(CUSTOMERS)},item-${Math.floor(next() * 500)},${qty},${price}`,
      );
    }
    writeFileSync(
      path.join(invoices, `invoice-${String(i).padStart(3, "0")}.csv`),
      lines.join("\n") + "\n",
    );
  }
  for (let i = 1; i <= 20; i++) {
    const lines: string[] = [];
    for (let l = 0; l < 100; l++) {
      const level = next() < 0.1 ? "ERROR" : next() < 0.3 ? "WARN" : "INFO";
      const minute = String(l % 60).padStart(2, "0");
      lines.push(
        `2026-11-30T10:${minute}:00Z ${level} ${pick(SERVICES)} request ${Math.floor(next() * 1e6)} took ${Math.floor(next() * 900)} ms`,
      );
    }
    writeFileSync(
      path.join(logs, `node-${String(i).padStart(2, "0")}.log`),
      lines.join("\n") + "\n",
    );
  }
  const people = ["name,company,role"];
  for (let i = 1; i <= 40; i++) {
    people.push(
      `Person ${String(i).padStart(2, "0")},${pick(COMPANIES)},${pick(["engineer", "designer", "manager", "analyst"])}`,
    );
  }
  const peopleFile = path.join(root, "people.csv");
  writeFileSync(peopleFile, people.join("\n") + "\n");
  return { root, invoices, logs, people: peopleFile };
}

export function tasks(files: TaskFiles): Task[] {
  const pairs = Array.from({ length: 25 }, (_, i) => [i * 7 + 3, i * 11 + 5] as const);
  return [
    {
      name: "sum 25 pairs with get-sum (everything)",
      classic: async ({ call }) => {
        let total = 0;
        for (const [a, b] of pairs) {
          const text = await call({ server: "everything", tool: "get-sum", args: { a, b } });
          total += lastNumber(text);
        }
        return String(total);
      },
      lookUp: ["everything.get_sum"],
      code: `import asyncio, re
pairs = ${JSON.stringify(pairs)}
rs = await asyncio.gather(*(everything.get_sum(a=a, b=b) for a, b in pairs))
print(sum(int(re.findall(r"-?\\d+", r)[-1]) for r in rs))`,
    },
    {
      name: "Globex's invoice total over 50 CSV files (filesystem)",
      classic: async ({ call }) => {
        const listing = await call({
          server: "filesystem",
          tool: "list_directory",
          args: { path: files.invoices },
        });
        let total = 0;
        for (const name of listedFiles(listing)) {
          const text = await call({
            server: "filesystem",
            tool: "read_text_file",
            args: { path: path.join(files.invoices, name) },
          });
          for (const [, customer, , qty, price] of csvRows(text)) {
            if (customer === "Globex") total += Number(qty) * Number(price);
          }
        }
        return total.toFixed(2);
      },
      lookUp: ["filesystem.list_directory", "filesystem.read_text_file"],
      code: `import asyncio
d = ${JSON.stringify(files.invoices)}
listing = (await filesystem.list_directory(path=d))["content"]
names = sorted(l[7:] for l in listing.splitlines() if l.startswith("[FILE] "))
files = await asyncio.gather(*(filesystem.read_text_file(path=f"{d}/{n}") for n in names))
total = 0.0
for f in files:
    for line in f["content"].strip().splitlines()[1:]:
        _, customer, _, qty, price = line.split(",")
        if customer == "Globex":
            total += int(qty) * float(price)
print(f"{total:.2f}")`,
    },
    {
      name: "the three largest invoice files (filesystem)",
      classic: async ({ call }) => {
        const text = await call({
          server: "filesystem",
          tool: "list_directory_with_sizes",
          args: { path: files.invoices, sortBy: "size" },
        });
        return sizeTop(text);
      },
      lookUp: ["filesystem.list_directory_with_sizes"],
      code: `r = await filesystem.list_directory_with_sizes(path=${JSON.stringify(files.invoices)}, sortBy="size")
print(",".join([l[7:].split()[0] for l in r["content"].splitlines() if l.startswith("[FILE] ")][:3]))`,
    },
    {
      name: "ERROR lines per service in 20 logs (filesystem)",
      classic: async ({ call }) => {
        const listing = await call({
          server: "filesystem",
          tool: "list_directory",
          args: { path: files.logs },
        });
        const counts = new Map<string, number>();
        for (const name of listedFiles(listing)) {
          const text = await call({
            server: "filesystem",
            tool: "read_text_file",
            args: { path: path.join(files.logs, name) },
          });
          for (const line of text.split("\n")) {
            const [, level, service] = line.split(" ");
            if (level === "ERROR" && service !== undefined)
              counts.set(service, (counts.get(service) ?? 0) + 1);
          }
        }
        return [...counts]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([s, n]) => `${s}=${n}`)
          .join(",");
      },
      lookUp: ["filesystem.list_directory", "filesystem.read_text_file"],
      code: `import asyncio
from collections import Counter
d = ${JSON.stringify(files.logs)}
listing = (await filesystem.list_directory(path=d))["content"]
names = [l[7:] for l in listing.splitlines() if l.startswith("[FILE] ")]
logs = await asyncio.gather(*(filesystem.read_text_file(path=f"{d}/{n}") for n in names))
c = Counter(l.split()[2] for f in logs for l in f["content"].splitlines() if l.split()[1:2] == ["ERROR"])
print(",".join(f"{s}={n}" for s, n in sorted(c.items())))`,
    },
    {
      name: "people.csv into the memory graph, then who works at Acme (filesystem, memory)",
      classic: async ({ call }) => {
        const text = await call({
          server: "filesystem",
          tool: "read_text_file",
          args: { path: files.people },
        });
        const rows = csvRows(text);
        await call({
          server: "memory",
          tool: "create_entities",
          args: {
            entities: [
              ...COMPANIES.map((c) => ({ name: c, entityType: "company", observations: [] })),
              ...rows.map(([name, , role]) => ({
                name,
                entityType: "person",
                observations: [`role: ${role}`],
              })),
            ],
          },
        });
        await call({
          server: "memory",
          tool: "create_relations",
          args: {
            relations: rows.map(([name, company]) => ({
              from: name,
              to: company,
              relationType: "works_at",
            })),
          },
        });
        const graph = JSON.parse(
          await call({ server: "memory", tool: "search_nodes", args: { query: "Acme" } }),
        ) as {
          relations: { from: string; to: string; relationType: string }[];
        };
        return graph.relations
          .filter((r) => r.to === "Acme" && r.relationType === "works_at")
          .map((r) => r.from)
          .sort()
          .join(",");
      },
      lookUp: [
        "filesystem.read_text_file",
        "memory.create_entities",
        "memory.create_relations",
        "memory.search_nodes",
      ],
      code: `text = (await filesystem.read_text_file(path=${JSON.stringify(files.people)}))["content"]
rows = [l.split(",") for l in text.strip().splitlines()[1:]]
companies = sorted({c for _, c, _ in rows})
await memory.create_entities(entities=[{"name": c, "entityType": "company", "observations": []} for c in companies]
    + [{"name": n, "entityType": "person", "observations": [f"role: {r}"]} for n, _, r in rows])
await memory.create_relations(relations=[{"from": n, "to": c, "relationType": "works_at"} for n, c, _ in rows])
g = await memory.search_nodes(query="Acme")
print(",".join(sorted(r["from"] for r in g["relations"] if r["to"] == "Acme" and r["relationType"] == "works_at")))`,
    },
    ...modelStyleTasks(files),
  ];
}
