// The stand-in's app.requestSingleInstanceLock, across processes like Electron's: the first
// process creates a lock file in the user-data folder (exclusively, with its pid); a later one
// finds it held by a live process, leaves its argv in the first one's inbox and gets false;
// the first one sees the message and emits second-instance. A lock whose process is gone is
// taken over, as Electron does after a crash.
const fs = require("node:fs");
const path = require("node:path");

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function deliver(inbox, message) {
  const name = `${process.pid}-${Date.now()}`;
  fs.mkdirSync(inbox, { recursive: true });
  fs.writeFileSync(path.join(inbox, `${name}.tmp`), JSON.stringify(message));
  fs.renameSync(path.join(inbox, `${name}.tmp`), path.join(inbox, `${name}.json`));
}

function listen(inbox, onMessage) {
  fs.mkdirSync(inbox, { recursive: true });
  const drain = () => {
    for (const name of fs.readdirSync(inbox)) {
      if (!name.endsWith(".json")) continue;
      const file = path.join(inbox, name);
      const message = JSON.parse(fs.readFileSync(file, "utf8"));
      fs.rmSync(file, { force: true });
      onMessage(message);
    }
  };
  // Not what keeps the app alive: that is the app's own business, as in Electron.
  fs.watch(inbox, drain).unref();
}

/** True when this process now holds the lock; false when another live process does. */
function requestLock(userData, additionalData, onSecondInstance) {
  fs.mkdirSync(userData, { recursive: true });
  const lock = path.join(userData, "SingletonLock");
  const inbox = path.join(userData, "SingletonInbox");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: "wx" });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const owner = Number(fs.readFileSync(lock, "utf8"));
      // An empty file is a lock being written right now: its owner is alive.
      if (!(owner > 0) || alive(owner)) {
        deliver(inbox, { argv: process.argv, cwd: process.cwd(), data: additionalData ?? null });
        return false;
      }
      fs.rmSync(lock, { force: true });
      continue;
    }
    listen(inbox, onSecondInstance);
    process.on("exit", () => fs.rmSync(lock, { force: true }));
    return true;
  }
  return false;
}

module.exports = { requestLock };
