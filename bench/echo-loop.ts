// The Python both call-path benches run: `calls` sequential awaits of the tool `echo` (or the
// name given: `toy__echo` through the app, whose names carry their server), after `warmUp`
// untimed ones, each timed in Python around its await; prints the median in ms.
export function echoLoopCode(warmUp: number, calls: number, tool = "echo"): string {
  return `import time
for _ in range(${warmUp}):
    await ${tool}({"text": "x"})
times = []
for _ in range(${calls}):
    t = time.perf_counter()
    r = await ${tool}({"text": "x"})
    times.append((time.perf_counter() - t) * 1000)
    assert r == "x", r
times.sort()
print(times[len(times) // 2])`;
}
